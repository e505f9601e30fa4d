//! Release notes and changelogs: pages that list, version by version, what
//! changed. They mention nearly every feature in passing ("Stabilise
//! `Option::is_none_or`", "Cargo now warns about …"), so their sentences
//! share the words of almost any question without answering it: a line
//! saying a flag was added is not how to use the flag. Such a page answers
//! only a question about a release — when something changed, what a version
//! brought — and REVIEW keeps it only for those.
//!
//! Both tests are about the shape of text, not about any project: a release
//! log is a page with several headings that name a dotted version number;
//! a question is about a release when it names a version or asks about
//! releases, versions, changelogs or stabilisation.

use super::analysis::AnalyzedDoc;

/// Headings naming a version from which a page is a release log: one or
/// two could be a page about a migration ("Moving to 2.0"); a log has one
/// per release.
const VERSION_HEADINGS: usize = 4;

/// Words (lower case) of a question that asks about a release.
const RELEASE_WORDS: &[&str] = &[
    "release",
    "released",
    "releases",
    "version",
    "versions",
    "changelog",
    "changelogs",
    "stabilized",
    "stabilised",
    "stabilize",
    "stabilise",
    "stabilization",
    "stabilisation",
];

/// Whether the page lists changes release by release.
pub fn is_release_log(an: &AnalyzedDoc) -> bool {
    an.headings.iter().filter(|(h, _)| names_version(h)).take(VERSION_HEADINGS).count() >= VERSION_HEADINGS
}

/// Whether the question asks about a release: it names a version number or
/// uses a word about releases.
pub fn asks_about_release(question: &str) -> bool {
    names_version(question)
        || question
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| RELEASE_WORDS.iter().any(|r| w.eq_ignore_ascii_case(r)))
}

/// Whether `text` holds a dotted version number as a word of its own:
/// "1.95", "v0.4.2", "(2.1)", "§Version 1.94.0" — digits, a dot, digits,
/// optionally more dotted parts.
fn names_version(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | ',' | ':' | ';'))
        .map(|w| w.trim_start_matches(['v', 'V', '\u{a7}']).trim_end_matches(['.', '?', '!']))
        .any(|w| {
            let mut parts = w.split('.');
            let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            w.contains('.') && parts.all(numeric)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::Stemmer;

    fn doc(text: &str) -> AnalyzedDoc {
        super::super::analysis::analyze("page", text, &mut Stemmer::default())
    }

    #[test]
    fn a_page_with_a_heading_per_release_is_a_release_log() {
        let log = "# Changes\n\n## Version 2.3.0 (2024-05-01)\n\nAdded a flag.\n\n### Fixed\n\nA bug.\n\n\
                   ## Version 2.2.1\n\nFixed a crash.\n\n## Tool 2.2 (2024-01-02)\n\nNew option.\n\n\
                   ## §Version 2.1.0\n\nFirst.\n";
        assert!(is_release_log(&doc(log)));
    }

    #[test]
    fn a_guide_naming_one_version_or_prices_is_not() {
        let guide = "# Upgrading\n\n## Moving to 2.0\n\nRename the option.\n\n## Costs\n\nA plot costs 45 \
                     euros a year.\n\n## Step 1.\n\nOpen the file.\n\n## Python 3.12 notes\n\nNothing.\n";
        assert!(!is_release_log(&doc(guide)));
    }

    #[test]
    fn a_question_names_a_release_by_number_or_word() {
        assert!(asks_about_release("What changed in 1.80?"));
        assert!(asks_about_release("When was let-else stabilized?"));
        assert!(asks_about_release("Which release added the sparse registry protocol?"));
        assert!(!asks_about_release("How do I make only dependencies optimised in debug builds?"));
        assert!(!asks_about_release("How do I print a float with 2 digits after the point?"));
        assert!(!asks_about_release("What does the section 3 example mean?"));
    }
}
