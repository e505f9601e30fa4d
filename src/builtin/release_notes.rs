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
//! a question is about a log's releases when it asks about releases,
//! versions, changelogs or stabilisation, or names a version the log has a
//! heading for (not "foo = \"0.2\"", a version of something else).

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
    an.headings.iter().filter(|(h, _)| versions(h).next().is_some()).take(VERSION_HEADINGS).count() >= VERSION_HEADINGS
}

/// What a question asks of release logs: whether it speaks of releases
/// ("which release added …", "when was it stabilised") and which version
/// numbers it names.
#[derive(Debug)]
pub struct ReleaseAsk {
    about_releases: bool,
    versions: Vec<String>,
}

impl ReleaseAsk {
    /// Whether a release log answers the question: the question speaks of
    /// releases, or it names a version the log has a heading for ("what
    /// changed in 1.80" and "## Version 1.80.0"). A version of something
    /// else ("foo = \"0.2\"" in a manifest, "Python 3.12") is no question
    /// about this log's releases.
    pub fn answered_by(&self, log: &AnalyzedDoc) -> bool {
        self.about_releases
            || log.headings.iter().any(|(h, _)| versions(h).any(|v| self.versions.iter().any(|q| same_release(q, v))))
    }
}

/// What `question` asks of release logs.
pub fn release_ask(question: &str) -> ReleaseAsk {
    ReleaseAsk {
        about_releases: question
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| RELEASE_WORDS.iter().any(|r| w.eq_ignore_ascii_case(r))),
        versions: versions(question).map(str::to_string).collect(),
    }
}

/// Whether `asked` names the release `heading` names: the same dotted
/// parts, or the first of them ("1.80" is the release "1.80.0").
fn same_release(asked: &str, heading: &str) -> bool {
    heading == asked || heading.strip_prefix(asked).is_some_and(|rest| rest.starts_with('.'))
}

/// The dotted version numbers `text` holds as words of their own: "1.95",
/// "v0.4.2", "(2.1)", "§Version 1.94.0" — digits, a dot, digits, optionally
/// more dotted parts.
fn versions(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | ',' | ':' | ';' | '"' | '\''))
        .map(|w| w.trim_start_matches(['v', 'V', '\u{a7}']).trim_end_matches(['.', '?', '!']))
        .filter(|w| {
            let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            w.contains('.') && w.split('.').all(numeric)
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

    fn log() -> AnalyzedDoc {
        doc("# Changes\n\n## Version 1.80.0 (2024-07-25)\n\nAdded.\n\n## Version 1.79.0\n\nFixed.\n\n\
             ## Version 1.78.0\n\nNew.\n\n## Version 1.77.2\n\nFirst.\n")
    }

    #[test]
    fn a_question_about_a_release_is_answered_by_a_log() {
        assert!(is_release_log(&log()));
        assert!(release_ask("What changed in 1.80?").answered_by(&log()));
        assert!(release_ask("What did v1.77.2 fix?").answered_by(&log()));
        assert!(release_ask("When was let-else stabilized?").answered_by(&log()));
        assert!(release_ask("Which release added the sparse registry protocol?").answered_by(&log()));
    }

    #[test]
    fn a_question_naming_a_version_of_something_else_is_not() {
        // A dependency's version in a manifest is not one of the log's releases.
        assert!(!release_ask("If I write `foo = \"0.2\"`, will it pull in 0.3?").answered_by(&log()));
        // Nor a prefix of a release that is not dotted at that place.
        assert!(!release_ask("What changed in 1.8?").answered_by(&log()));
        assert!(!release_ask("How do I make only dependencies optimised in debug builds?").answered_by(&log()));
        assert!(!release_ask("How do I print a float with 2 digits after the point?").answered_by(&log()));
        assert!(!release_ask("What does the section 3 example mean?").answered_by(&log()));
    }
}
