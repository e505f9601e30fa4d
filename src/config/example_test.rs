//! `config.toml.example` must stay loadable, with every key uncommented.

#[cfg(test)]
mod tests {
    use crate::config::Config;

    /// Uncomments `# key = value` lines (not prose comments).
    fn uncommented(text: &str) -> String {
        text.lines()
            .map(|l| {
                let t = l.trim_start();
                match t.strip_prefix("# ") {
                    Some(rest) if rest.contains(" = ") && !rest.starts_with('#') && !rest.contains("->") => {
                        rest.split("  #").next().unwrap_or(rest).trim_end().to_string()
                    }
                    _ => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    #[allow(clippy::field_reassign_with_default)] // reads as "the defaults, except"
    fn example_with_every_key_uncommented_equals_the_defaults() {
        let text = include_str!("../../config.toml.example");
        let active = uncommented(text);
        let cfg: Config = toml::from_str(&active).unwrap_or_else(|e| panic!("{e}\n{active}"));
        // The example shows sample tier entries and endpoints that are not defaults.
        let mut expected =
            Config { source_tiers: cfg.source_tiers.clone(), local: cfg.local.clone(), ..Config::default() };
        expected.local.corpus = None;
        let mut got = cfg.clone();
        got.local.corpus = None;
        got.llm = expected.llm.clone();
        got.web = expected.web.clone();
        got.opensearch.url = expected.opensearch.url.clone();
        got.opensearch.ca_file = None;
        // The example shows `sources = "academic"`; unset, the chains decide.
        assert!(got.search.sources.is_some());
        got.search.sources = None;
        // The [limits] lines show the standard preset's values.
        assert_eq!(got.limits.resolve(got.research.preset), expected.research.preset.limits());
        got.limits = expected.limits.clone();
        assert_eq!(got, expected);
    }
}
