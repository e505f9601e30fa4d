//! `sleuth sesions` must not research "sesions". A bare first argument is
//! the question for the TUI, so clap cannot tell a mistyped subcommand from
//! a one-word question; this does, before clap parses.
//!
//! The rule: the first positional argument is a mistyped subcommand when it
//! is a single word (letters and dashes only, no `?`) within a small edit
//! distance of a subcommand's name — 1 for names of up to 4 letters (`run`,
//! `fork`, `open`: at distance 2 they are near too many real words, such as
//! "rust"), 2 for longer ones (`sesions`, `exprt`). Every other word is a
//! question. A one-word question that happens to be that close is still
//! researched when asked as one: `sleuth "forks?"` or `sleuth run forks`,
//! which the error says.

use std::ffi::OsString;

/// What the user typed and the subcommand they most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mistyped {
    pub typed: String,
    pub meant: String,
}

/// The mistyped subcommand in `args` (program name first), if any.
pub fn mistyped_subcommand(command: &clap::Command, args: &[OsString]) -> Option<Mistyped> {
    let word = first_positional(command, args)?;
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    if names.contains(&word) || !word.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    names
        .into_iter()
        .filter(|n| n != "help")
        .map(|n| (edit_distance(&lower, &n), n))
        // Distance 0 here is a subcommand typed in another case (`Sessions`).
        .filter(|(d, n)| *d <= if n.len() <= 4 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, meant)| Mistyped { typed: word, meant })
}

/// The first argument that is neither a flag nor a flag's value.
fn first_positional(command: &clap::Command, args: &[OsString]) -> Option<String> {
    let takes_value =
        |name: &str| command.get_arguments().any(|a| a.get_long() == Some(name) && a.get_action().takes_values());
    let mut iter = args.iter().skip(1).map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = iter.next() {
        if arg == "--" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && takes_value(long) {
                iter.next();
            }
            continue;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            continue;
        }
        return Some(arg);
    }
    None
}

/// Levenshtein distance, with a swap of two neighbours counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    fn check(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = std::iter::once("sleuth").chain(args.iter().copied()).map(OsString::from).collect();
        mistyped_subcommand(&Cli::command(), &args).map(|m| m.meant)
    }

    #[test]
    fn near_misses_of_subcommands_are_caught() {
        assert_eq!(check(&["sesions"]).as_deref(), Some("sessions"));
        assert_eq!(check(&["exprt", "last"]).as_deref(), Some("export"));
        assert_eq!(check(&["--set", "a=b", "Resmue"]).as_deref(), Some("resume"));
        assert_eq!(check(&["--config", "x.toml", "stast"]).as_deref(), Some("stats"));
        assert_eq!(check(&["rnu"]).as_deref(), Some("run"));
        assert_eq!(check(&["Sessions"]).as_deref(), Some("sessions"));
        assert_eq!(check(&["EXPORT", "last"]).as_deref(), Some("export"));
    }

    #[test]
    fn questions_and_real_subcommands_pass() {
        for args in [
            &["sessions"][..],
            &["rust"],
            &["lifetimes"],
            &["forks?"],
            &["How do sessions work?"],
            &["--preset", "deep", "ownership"],
            &["--", "sesions"],
        ] {
            assert_eq!(check(args), None, "{args:?}");
        }
        // One edit from a short name is still caught; the error says how
        // to ask the word itself.
        assert_eq!(check(&["work"]).as_deref(), Some("fork"));
    }

    #[test]
    fn distance_counts_a_swap_as_one() {
        assert_eq!(edit_distance("exprot", "export"), 1);
        assert_eq!(edit_distance("sesions", "sessions"), 1);
        assert_eq!(edit_distance("rust", "run"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
