//! Excluded terms as each provider writes them. The engine hands over plain
//! terms and `site:domain` entries (from the quality report's refinement);
//! SearXNG and Brave take `-term` / `-"two words"` / `-site:domain` in the
//! query, Tavily takes domains in `exclude_domains` and terms in the query.

/// Excluded terms, cleaned and split by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exclusions {
    pub terms: Vec<String>,
    pub sites: Vec<String>,
}

impl Exclusions {
    pub fn parse(exclude: &[String]) -> Self {
        let mut out = Exclusions::default();
        for raw in exclude {
            let t = raw.trim().trim_start_matches('-').trim();
            let t: String = t.chars().filter(|c| *c != '"' && !c.is_control()).collect();
            let t = t.trim();
            if let Some(site) = t.strip_prefix("site:") {
                let site = domain_of(site);
                if !site.is_empty() && !out.sites.contains(&site) {
                    out.sites.push(site);
                }
            } else if !t.is_empty() && !out.terms.iter().any(|x| x.eq_ignore_ascii_case(t)) {
                out.terms.push(t.to_string());
            }
        }
        out
    }

    /// `-term`, `-"two words"`; with `sites`, `-site:domain` as well.
    pub fn operators(&self, sites: bool) -> Vec<String> {
        let terms = self
            .terms
            .iter()
            .map(|t| if t.contains(char::is_whitespace) { format!("-\"{t}\"") } else { format!("-{t}") });
        let sites = self.sites.iter().filter(|_| sites).map(|s| format!("-site:{s}"));
        terms.chain(sites).collect()
    }
}

/// The query text followed by as many operators as fit in `max_chars`
/// (search APIs cap query length; the text itself is never cut).
pub fn with_operators(text: &str, operators: &[String], max_chars: usize) -> String {
    let mut q = text.trim().to_string();
    for op in operators {
        if q.chars().count() + 1 + op.chars().count() > max_chars {
            break;
        }
        q.push(' ');
        q.push_str(op);
    }
    q
}

/// `https://www.Example.org/path` → `example.org`.
fn domain_of(s: &str) -> String {
    let s = s.trim();
    let s = s.split_once("://").map_or(s, |(_, rest)| rest);
    let host = s.split(['/', '?', '#']).next().unwrap_or("");
    host.trim_start_matches("www.").to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(v: &[&str]) -> Exclusions {
        Exclusions::parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn terms_and_sites_are_split_and_cleaned() {
        let e = ex(&["cage", "-book", "\"toy store\"", "site:https://www.Reddit.com/r/x", "Cage", "", "site:"]);
        assert_eq!(e.terms, vec!["cage", "book", "toy store"]);
        assert_eq!(e.sites, vec!["reddit.com"]);
    }

    #[test]
    fn operators_quote_phrases_and_optionally_name_sites() {
        let e = ex(&["cage", "toy store", "site:reddit.com"]);
        assert_eq!(e.operators(true), vec!["-cage", "-\"toy store\"", "-site:reddit.com"]);
        assert_eq!(e.operators(false), vec!["-cage", "-\"toy store\""]);
    }

    #[test]
    fn operators_stop_at_the_length_cap() {
        let ops = vec!["-alpha".to_string(), "-beta".to_string()];
        assert_eq!(with_operators("q", &ops, 8), "q -alpha");
        assert_eq!(with_operators("q", &ops, 100), "q -alpha -beta");
    }
}
