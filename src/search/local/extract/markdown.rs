//! Markdown and plain-text files: sections at `#` headings, paragraphs at
//! blank lines, fenced code kept as code.

use super::{Block, Page, Section, resolve_link, slug};

/// A page from Markdown source. The title is the first heading, else `fallback_title`.
pub fn extract_markdown(text: &str, fallback_title: &str) -> Page {
    let mut sections: Vec<Section> = Vec::new();
    let mut current = Section::default();
    let mut para: Vec<&str> = Vec::new();
    let mut fence: Option<(String, Vec<&str>)> = None;
    let mut title: Option<String> = None;
    let flush = |para: &mut Vec<&str>, current: &mut Section| {
        let joined = para.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        if !joined.trim().is_empty() {
            current.blocks.push(Block::Para(joined));
        }
        para.clear();
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some((marker, code)) = fence.as_mut() {
            if trimmed.starts_with(marker.as_str()) {
                let code = code.join("\n");
                if !code.trim().is_empty() {
                    current.blocks.push(Block::Code(code));
                }
                fence = None;
            } else {
                code.push(line);
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            flush(&mut para, &mut current);
            fence = Some((trimmed[..3].to_string(), Vec::new()));
            continue;
        }
        if let Some(heading) = atx_heading(trimmed) {
            flush(&mut para, &mut current);
            if title.is_none() {
                title = Some(heading.to_string());
            }
            let done = std::mem::replace(
                &mut current,
                Section { heading: Some(heading.to_string()), anchor: Some(slug(heading)), ..Section::default() },
            );
            if !done.blocks.is_empty() {
                sections.push(done);
            }
            continue;
        }
        if trimmed.is_empty() || is_list_item(trimmed) {
            flush(&mut para, &mut current);
        }
        if !trimmed.is_empty() {
            para.push(line);
        }
    }
    if let Some((_, code)) = fence {
        let code = code.join("\n");
        if !code.trim().is_empty() {
            current.blocks.push(Block::Code(code));
        }
    }
    flush(&mut para, &mut current);
    if !current.blocks.is_empty() {
        sections.push(current);
    }
    Page { title: title.unwrap_or_else(|| fallback_title.to_string()), lang: None, sections, links: Vec::new() }
}

/// Fills each section's links from the inline links of its paragraphs
/// (`[text](target)`, images left out), resolved against `rel_path`. The
/// page's own link list (duplicate and stub detection) is left as it is.
pub fn link_sections(page: &mut Page, rel_path: &str) {
    for section in &mut page.sections {
        for block in &section.blocks {
            let Block::Para(text) = block else { continue };
            for href in inline_targets(text) {
                if let Some(target) = resolve_link(rel_path, href)
                    && target != rel_path
                    && !section.links.contains(&target)
                {
                    section.links.push(target);
                }
            }
        }
    }
}

/// The targets of `[text](target "title")` links in `text`.
fn inline_targets(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let before = &rest[..at];
        let is_image = before.rfind('[').is_some_and(|open| before[..open].ends_with('!'));
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        if let Some(target) = after[..end].split_whitespace().next()
            && !is_image
        {
            out.push(target.trim_matches(['<', '>']));
        }
        rest = &after[end..];
    }
    out
}

/// A page from plain text: paragraphs at blank lines, no headings.
pub fn extract_plain(text: &str, fallback_title: &str) -> Page {
    // A plain-text file's title is its first line when that line stands
    // alone (a blank line after it, text further on) and is short enough
    // to be one; otherwise the file name.
    let all: Vec<&str> = text.lines().skip_while(|l| l.trim().is_empty()).collect();
    let stands_alone = all.len() > 2
        && all[1].trim().is_empty()
        && all[0].trim().chars().count() <= PLAIN_TITLE_MAX_CHARS
        && all[2..].iter().any(|l| !l.trim().is_empty());
    let (title, body) =
        if stands_alone { (all[0].trim().to_string(), &all[1..]) } else { (fallback_title.to_string(), &all[..]) };
    let mut blocks = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    for line in body.iter().copied().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !para.is_empty() {
                blocks.push(Block::Para(para.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")));
                para.clear();
            }
        } else {
            para.push(line);
        }
    }
    let sections = if blocks.is_empty() {
        Vec::new()
    } else {
        vec![Section { heading: None, anchor: None, blocks, links: Vec::new() }]
    };
    Page { title, lang: None, sections, links: Vec::new() }
}

/// The longest first line of a `.txt` file taken as its title.
const PLAIN_TITLE_MAX_CHARS: usize = 120;

fn atx_heading(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with(' ') && !rest.starts_with('\t') {
        return None;
    }
    let h = rest.trim().trim_end_matches('#').trim();
    (!h.is_empty()).then_some(h)
}

fn is_list_item(line: &str) -> bool {
    line.starts_with("- ")
        || line.starts_with("* ")
        || line.starts_with("+ ")
        || line
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_paragraphs_and_code() {
        let md = "# Guide\n\nIntro line one\nline two.\n\n## Setup `x`\n\n- item a\n- item b\n\n```rust\nfn main() {}\n\n# not a heading\n```\n";
        let p = extract_markdown(md, "file");
        assert_eq!(p.title, "Guide");
        assert_eq!(p.sections.len(), 2);
        assert_eq!(p.sections[0].blocks, vec![Block::Para("Intro line one line two.".into())]);
        assert_eq!(p.sections[1].heading.as_deref(), Some("Setup `x`"));
        assert_eq!(p.sections[1].anchor.as_deref(), Some("setup-x"));
        assert_eq!(p.sections[1].blocks.len(), 3);
        assert_eq!(p.sections[1].blocks[2], Block::Code("fn main() {}\n\n# not a heading".into()));
    }

    #[test]
    fn plain_text_paragraphs() {
        let p = extract_plain("one\ntwo\n\n\nthree\n", "notes");
        assert_eq!(p.title, "notes");
        assert_eq!(p.sections[0].blocks, vec![Block::Para("one two".into()), Block::Para("three".into())]);
    }

    #[test]
    fn a_first_line_standing_alone_is_the_title() {
        let p = extract_plain("\nBorrowing rules\n\nOne mutable or many shared.\nNever both.\n", "notes");
        assert_eq!(p.title, "Borrowing rules");
        assert_eq!(p.sections[0].blocks, vec![Block::Para("One mutable or many shared. Never both.".into())]);
        // Alone in the file, or too long to be a title: the file name.
        assert_eq!(extract_plain("Only line\n", "notes").title, "notes");
        let long = format!("{}\n\nbody\n", "word ".repeat(40));
        assert_eq!(extract_plain(&long, "notes").title, "notes");
    }
}
