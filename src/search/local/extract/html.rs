//! Streaming extraction of a documentation page's content region: the
//! `<main>` element (rustdoc and mdBook put the page there), or `<article>`,
//! with navigation, toolbars, source links and rustdoc's long trait
//! implementation lists left out. Pages with neither go to the readability
//! fallback. Titles, headings and their anchors are kept.

use super::scan::{Scanner, Token, attr, has_class, is_void};
use super::{Block, Extracted, Page, Section, SkipReason, resolve_link};

/// Elements whose whole subtree is never content.
const SKIP_ELEMENTS: &[&[u8]] = &[
    b"nav",
    b"script",
    b"style",
    b"noscript",
    b"button",
    b"svg",
    b"form",
    b"select",
    b"template",
    b"header",
    b"footer",
    b"rustdoc-toolbar",
    b"rustdoc-topbar",
];

/// Classes of page chrome: sidebars, toolbars, anchors, "Source" links,
/// version badges, breadcrumbs, tooltips.
const SKIP_CLASSES: &[&[u8]] = &[
    b"sidebar",
    b"hideme",
    b"rightside",
    b"src",
    b"anchor",
    b"doc-anchor",
    b"since",
    b"sub-heading",
    b"rustdoc-breadcrumbs",
    b"nav-wrapper",
    b"nav-wide-wrapper",
    b"notable-traits",
    b"tooltip",
    b"out-of-band",
    // The Reference's link to a rule's own id (`[items.traits.dyn-compatible.intro]`):
    // an anchor, and between two list items it would split the list.
    b"rule-link",
];

const SKIP_IDS: &[&[u8]] = &[b"copy-path", b"mdbook-help-container", b"mdbook-sidebar", b"rustdoc-toc", b"search"];

/// rustdoc sections that list implementations of other traits: long,
/// repeated on every type, and documented on their own pages.
fn is_rustdoc_list_section(id: &[u8]) -> bool {
    const IDS: &[&[u8]] = &[
        b"trait-implementations",
        b"synthetic-implementations",
        b"blanket-implementations",
        b"implementors",
        b"synthetic-implementors",
        b"foreign-impls",
    ];
    IDS.contains(&id) || id.starts_with(b"deref-methods")
}

const BLOCKS: &[&[u8]] = &[
    b"p",
    b"div",
    b"section",
    b"li",
    b"ul",
    b"ol",
    b"dl",
    b"dt",
    b"dd",
    b"table",
    b"tr",
    b"blockquote",
    b"figure",
    b"figcaption",
    b"details",
    b"summary",
    b"br",
    b"hr",
    b"article",
    b"main",
];

fn is(name: &[u8], set: &[&[u8]]) -> bool {
    set.iter().any(|s| s.eq_ignore_ascii_case(name))
}

fn heading_level(name: &[u8]) -> Option<u8> {
    match name {
        [b'h' | b'H', d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// Collapses whitespace while text is appended piecewise.
#[derive(Default)]
struct Collapsing {
    text: String,
    space: bool,
}

impl Collapsing {
    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push(c);
        }
    }

    fn push(&mut self, c: char) {
        if c.is_whitespace() {
            self.space = !self.text.is_empty();
            return;
        }
        if self.space {
            self.text.push(' ');
            self.space = false;
        }
        self.text.push(c);
    }

    fn take(&mut self) -> String {
        self.space = false;
        std::mem::take(&mut self.text)
    }
}

struct State<'p> {
    rel_path: &'p str,
    region: &'static [u8],
    rustdoc: bool,
    region_depth: u32,
    region_seen: bool,
    /// Name and nesting depth of the element being skipped.
    skip: Option<(Vec<u8>, u32)>,
    list_section: bool,
    title: Collapsing,
    in_title: bool,
    lang: Option<String>,
    sections: Vec<Section>,
    current: Section,
    para: Collapsing,
    heading: Option<(Collapsing, Option<String>)>,
    pre: Option<String>,
    pending_id: Option<String>,
    links: Vec<String>,
    /// Links inside the heading being read.
    heading_links: Vec<String>,
    /// A list item opened and its text is not written yet: the next
    /// paragraph is written as a Markdown item (`- …`), so that a list
    /// reads as one, as it does from a Markdown page.
    item: bool,
}

impl State<'_> {
    fn flush_para(&mut self) {
        let text = self.para.take();
        if !text.trim().is_empty() {
            let text = if std::mem::take(&mut self.item) { format!("- {}", text.trim_start()) } else { text };
            self.current.blocks.push(Block::Para(text));
        }
    }

    fn in_content(&self) -> bool {
        self.region_depth > 0 && self.skip.is_none() && !self.list_section
    }

    fn text(&mut self, raw: &[u8]) {
        if self.in_title {
            self.title.push_str(&decode(raw));
            return;
        }
        if !self.in_content() {
            return;
        }
        let text = decode(raw);
        if let Some(pre) = self.pre.as_mut() {
            pre.push_str(&text);
        } else if let Some((h, _)) = self.heading.as_mut() {
            h.push_str(&text);
        } else {
            self.para.push_str(&text);
        }
    }

    /// Returns `Some` when the page turns out not to be a document.
    fn start(&mut self, name: &[u8], attrs: &[u8], self_closing: bool) -> Option<Extracted> {
        if let Some((skip, depth)) = self.skip.as_mut() {
            if skip.eq_ignore_ascii_case(name) && !self_closing && !is_void(name) {
                *depth += 1;
            }
            return None;
        }
        if name.eq_ignore_ascii_case(b"meta") {
            return self.meta(attrs);
        }
        if name.eq_ignore_ascii_case(b"html") {
            self.lang = attr(attrs, b"lang").map(|l| String::from_utf8_lossy(l).to_ascii_lowercase());
        }
        if name.eq_ignore_ascii_case(b"body") && has_class(attrs, b"rustdoc") && has_class(attrs, b"src") {
            return Some(Extracted::Skipped(SkipReason::SourceListing));
        }
        if name.eq_ignore_ascii_case(b"title") && self.region_depth == 0 && !self_closing {
            self.in_title = true;
            return None;
        }
        if name.eq_ignore_ascii_case(self.region) {
            self.region_depth += 1;
            self.region_seen = true;
            return None;
        }
        if self.region_depth == 0 {
            return None;
        }
        let skip_class = SKIP_CLASSES.iter().any(|c| has_class(attrs, c));
        let skip_id = attr(attrs, b"id").is_some_and(|id| SKIP_IDS.contains(&id));
        if (is(name, SKIP_ELEMENTS) || skip_class || skip_id) && !self_closing && !is_void(name) {
            self.skip = Some((name.to_ascii_lowercase(), 1));
            return None;
        }
        let id = attr(attrs, b"id").map(|v| String::from_utf8_lossy(v).into_owned());
        if self.rustdoc && heading_level(name) == Some(2) && has_class(attrs, b"section-header") {
            self.list_section = id.as_deref().is_some_and(|i| is_rustdoc_list_section(i.as_bytes()));
        }
        if self.list_section {
            return None;
        }
        if let Some(_level) = heading_level(name) {
            self.flush_para();
            let anchor = id.or_else(|| self.pending_id.take());
            self.heading = Some((Collapsing::default(), anchor));
            return None;
        }
        if id.is_some() {
            self.pending_id = id;
        }
        if name.eq_ignore_ascii_case(b"pre") {
            self.flush_para();
            self.pre = Some(String::new());
        } else if name.eq_ignore_ascii_case(b"code") && self.pre.is_none() {
            self.inline_mark();
        } else if name.eq_ignore_ascii_case(b"a") {
            if let Some(href) = attr(attrs, b"href")
                && let Some(target) = resolve_link(self.rel_path, &String::from_utf8_lossy(href))
            {
                // A link in a heading belongs to the section it opens.
                let section = if self.heading.is_some() { &mut self.heading_links } else { &mut self.current.links };
                if !section.contains(&target) && target != self.rel_path {
                    section.push(target.clone());
                }
                self.links.push(target);
            }
        } else if name.eq_ignore_ascii_case(b"td") || name.eq_ignore_ascii_case(b"th") {
            self.para.push(' ');
        } else if is(name, BLOCKS) && self.pre.is_none() && self.heading.is_none() {
            self.flush_para();
            if name.eq_ignore_ascii_case(b"li") {
                self.item = true;
            }
        }
        None
    }

    fn inline_mark(&mut self) {
        match self.heading.as_mut() {
            Some((h, _)) => h.push('`'),
            None => self.para.push('`'),
        }
    }

    fn end(&mut self, name: &[u8]) {
        if let Some((skip, depth)) = self.skip.as_mut() {
            if skip.eq_ignore_ascii_case(name) {
                *depth -= 1;
                if *depth == 0 {
                    self.skip = None;
                }
            }
            return;
        }
        if self.in_title && name.eq_ignore_ascii_case(b"title") {
            self.in_title = false;
            return;
        }
        if name.eq_ignore_ascii_case(self.region) {
            self.region_depth = self.region_depth.saturating_sub(1);
            if self.region_depth == 0 {
                self.flush_para();
                self.list_section = false;
            }
            return;
        }
        if !self.in_content() {
            return;
        }
        if heading_level(name).is_some() {
            if let Some((mut h, anchor)) = self.heading.take() {
                let text = h.take().replace("``", "");
                let text = text.trim().to_string();
                if !text.is_empty() {
                    self.new_section(Some(text), anchor);
                }
            }
        } else if name.eq_ignore_ascii_case(b"pre") {
            if let Some(code) = self.pre.take() {
                let code = code.trim_matches('\n').to_string();
                if !code.trim().is_empty() {
                    self.current.blocks.push(Block::Code(code));
                }
            }
        } else if name.eq_ignore_ascii_case(b"code") && self.pre.is_none() {
            self.inline_mark();
        } else if is(name, BLOCKS) && self.pre.is_none() && self.heading.is_none() {
            self.flush_para();
            // An empty item leaves no mark on what follows its list.
            if name.eq_ignore_ascii_case(b"ul") || name.eq_ignore_ascii_case(b"ol") {
                self.item = false;
            }
        }
    }

    fn new_section(&mut self, heading: Option<String>, anchor: Option<String>) {
        self.flush_para();
        let done = std::mem::replace(
            &mut self.current,
            Section { heading, anchor, blocks: Vec::new(), links: std::mem::take(&mut self.heading_links) },
        );
        if !done.blocks.is_empty() || done.heading.is_some() {
            self.sections.push(done);
        }
    }

    fn meta(&mut self, attrs: &[u8]) -> Option<Extracted> {
        let content = attr(attrs, b"content").map(|c| String::from_utf8_lossy(c).into_owned()).unwrap_or_default();
        if attr(attrs, b"http-equiv").is_some_and(|v| v.eq_ignore_ascii_case(b"refresh")) {
            let to = content
                .split_once(['=', ';'])
                .map(|(_, rest)| rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';'))
                .map(|rest| rest.trim_start_matches("URL=").trim_start_matches("url=").trim())
                .and_then(|target| resolve_link(self.rel_path, target));
            return Some(Extracted::Redirect { to });
        }
        let name = attr(attrs, b"name").unwrap_or_default();
        if name.eq_ignore_ascii_case(b"robots") && content.to_ascii_lowercase().contains("noindex") {
            return Some(Extracted::Skipped(SkipReason::NoIndex));
        }
        if name.eq_ignore_ascii_case(b"generator") && content.starts_with("rustdoc") {
            self.rustdoc = true;
        }
        None
    }
}

fn decode(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    let s = String::from_utf8_lossy(raw);
    if !s.contains('&') {
        return s;
    }
    std::borrow::Cow::Owned(html_escape::decode_html_entities(&s).into_owned())
}

/// What the head said, for the fallback when there is no content region.
pub struct Head {
    pub title: String,
    pub lang: Option<String>,
}

/// Extracts the content region `region` (`main` or `article`); the head's
/// title and language when the page has no such element.
fn extract_region(html: &str, rel_path: &str, region: &'static [u8]) -> Result<Extracted, Head> {
    let mut st = State {
        rel_path,
        region,
        rustdoc: false,
        region_depth: 0,
        region_seen: false,
        skip: None,
        list_section: false,
        title: Collapsing::default(),
        in_title: false,
        lang: None,
        sections: Vec::new(),
        current: Section::default(),
        para: Collapsing::default(),
        heading: None,
        pre: None,
        pending_id: None,
        links: Vec::new(),
        heading_links: Vec::new(),
        item: false,
    };
    for token in Scanner::new(html.as_bytes()) {
        match token {
            Token::Text(t) => st.text(t),
            Token::Start { name, attrs, self_closing } => {
                if let Some(out) = st.start(name, attrs, self_closing) {
                    return Ok(out);
                }
            }
            Token::End { name } => st.end(name),
        }
    }
    if !st.region_seen {
        return Err(Head { title: st.title.take(), lang: st.lang });
    }
    st.new_section(None, None);
    let title = st.title.take();
    let sections: Vec<Section> = st.sections.into_iter().filter(|s| !s.blocks.is_empty()).collect();
    Ok(Extracted::Page(Page { title, lang: st.lang, sections, links: st.links }))
}

/// A page from HTML: the streaming extraction when the page marks its
/// content region, else the readability fallback.
pub fn extract_html(html: &str, rel_path: &str) -> Extracted {
    if let Ok(out) = extract_region(html, rel_path, b"main") {
        return out;
    }
    match extract_region(html, rel_path, b"article") {
        Ok(out) => out,
        Err(head) => super::readable::extract_readable(html, head),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(body: &str) -> String {
        let html = format!("<html><head><title>T</title></head><body><main>{body}</main></body></html>");
        match extract_html(&html, "a.html") {
            Extracted::Page(p) => p.render(),
            other => panic!("not a page: {other:?}"),
        }
    }

    /// A list reads as one, as from a Markdown page: each item a `- ` line,
    /// its nested list's items too, and the paragraph after it is no item.
    #[test]
    fn list_items_are_written_as_items() {
        let text = rendered(
            "<h2 id=\"x\">Use a map when:</h2><ul><li>You want it <code>sorted</code>.</li>\
             <li><p>You want a range.</p></li><li>Outer<ul><li>inner</li></ul></li><li></li></ul><p>After.</p>",
        );
        assert!(
            text.ends_with(
                "## Use a map when:\n\n- You want it `sorted`.\n\n- You want a range.\n\n- Outer\n\n- inner\n\nAfter.\n"
            ),
            "{text}"
        );
    }

    /// The Reference's rule ids between a sentence and its list items are
    /// anchors, not text.
    #[test]
    fn a_rules_own_link_is_no_text() {
        let text = rendered(
            "<p>A trait is dyn compatible if:</p><div class=\"rule\" id=\"r-a.b\"><a class=\"rule-link\" \
             href=\"#r-a.b\"><span>[a.b]</span></a></div><ul><li>All supertraits are.</li></ul>",
        );
        assert!(text.ends_with("A trait is dyn compatible if:\n\n- All supertraits are.\n"), "{text}");
    }
}
