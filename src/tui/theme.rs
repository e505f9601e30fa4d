//! Themes: TOML files naming styles by meaning (`confidence_low`,
//! `citation`, `rejected`, `muted` …). Three are embedded (`dark`, `light`,
//! `high-contrast`); a file `themes/<name>.toml` in the config dir overrides
//! only the styles (and the fields of a style) it sets, over the embedded
//! theme of the same name, or over `extends = "<name>"` (default `dark`).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use toml::Spanned;

/// The embedded themes, by name.
pub const EMBEDDED: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("high-contrast", include_str!("../../themes/high-contrast.toml")),
];

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme `{name}`: choose one of {}, or add {}", available.join(", "), hint.display())]
    Unknown { name: String, available: Vec<String>, hint: PathBuf },
    #[error("theme file {path}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    File { path: PathBuf, line: Option<usize>, message: String },
    /// A style's value that is not one (a modifier or a color), where it is written.
    #[error("theme file {path}, line {line}, key `{key}`: {message}")]
    Value { path: PathBuf, line: usize, key: String, message: String },
    #[error("theme {origin}, style `{key}`: {message}")]
    Style { origin: String, key: String, message: String },
}

/// One style as written in a theme file. Each value keeps where it was
/// written, so that a bad one is reported with its line.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StyleSpec {
    pub fg: Option<Spanned<String>>,
    pub bg: Option<Spanned<String>>,
    /// `bold`, `dim`, `italic`, `underlined`, `reversed`, `crossed_out`.
    pub modifiers: Option<Vec<Spanned<String>>>,
}

/// A style's value that is not one: which field, where in the file, why.
#[derive(Debug)]
struct BadValue {
    field: &'static str,
    at: usize,
    message: String,
}

const MODIFIERS: &str = "bold, dim, italic, underlined, reversed or crossed_out";

impl StyleSpec {
    fn merged_over(&self, base: &StyleSpec) -> StyleSpec {
        StyleSpec {
            fg: self.fg.clone().or_else(|| base.fg.clone()),
            bg: self.bg.clone().or_else(|| base.bg.clone()),
            modifiers: self.modifiers.clone().or_else(|| base.modifiers.clone()),
        }
    }

    fn resolve(&self) -> Result<Style, BadValue> {
        let color = |v: &Option<Spanned<String>>, field: &'static str| -> Result<Option<Color>, BadValue> {
            v.as_ref()
                .map(|c| {
                    Color::from_str(c.get_ref()).map_err(|_| BadValue {
                        field,
                        at: c.span().start,
                        message: format!(
                            "`{}` is not a color: write a name like `cyan`, `#rrggbb`, or a number 0-255",
                            c.get_ref()
                        ),
                    })
                })
                .transpose()
        };
        let mut style = Style::default();
        if let Some(c) = color(&self.fg, "fg")? {
            style = style.fg(c);
        }
        if let Some(c) = color(&self.bg, "bg")? {
            style = style.bg(c);
        }
        for m in self.modifiers.iter().flatten() {
            let modifier = match m.get_ref().to_ascii_lowercase().as_str() {
                "bold" => Modifier::BOLD,
                "dim" => Modifier::DIM,
                "italic" => Modifier::ITALIC,
                "underlined" | "underline" => Modifier::UNDERLINED,
                "reversed" | "reverse" => Modifier::REVERSED,
                "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
                _ => {
                    return Err(BadValue {
                        field: "modifiers",
                        at: m.span().start,
                        message: format!("unknown modifier `{}`: use {MODIFIERS}", m.get_ref()),
                    });
                }
            };
            style = style.add_modifier(modifier);
        }
        Ok(style)
    }
}

/// Declares the theme's styles once: the resolved `Theme` and the file's
/// all-optional `[styles]` table.
macro_rules! theme_styles {
    ($( $(#[$doc:meta])* $field:ident ),* $(,)?) => {
        /// Resolved styles, by meaning.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            $( $(#[$doc])* pub $field: Style, )*
        }

        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct StylesFile {
            $( pub $field: Option<StyleSpec>, )*
        }

        impl Theme {
            /// Every style the terminal's default: the fallback of last resort.
            pub fn plain() -> Theme {
                Theme { name: "plain".into(), $( $field: Style::default(), )* }
            }
        }

        impl StylesFile {
            fn merged_over(&self, base: &StylesFile) -> StylesFile {
                StylesFile {
                    $( $field: match (&self.$field, &base.$field) {
                        (Some(top), Some(b)) => Some(top.merged_over(b)),
                        (top, b) => top.clone().or_else(|| b.clone()),
                    }, )*
                }
            }

            /// The first style whose value is not one, with its key.
            fn first_bad(&self) -> Option<(&'static str, BadValue)> {
                $( if let Some(Err(bad)) = self.$field.as_ref().map(StyleSpec::resolve) {
                    return Some((stringify!($field), bad));
                } )*
                None
            }

            fn resolve(&self, name: &str, origin: &str) -> Result<Theme, ThemeError> {
                let get = |key: &str, spec: &Option<StyleSpec>| -> Result<Style, ThemeError> {
                    let spec = spec.as_ref().ok_or_else(|| ThemeError::Style {
                        origin: origin.to_string(),
                        key: key.to_string(),
                        message: "missing (every style must be set in the base theme)".into(),
                    })?;
                    spec.resolve().map_err(|bad| ThemeError::Style {
                        origin: origin.to_string(),
                        key: key.to_string(),
                        message: bad.message,
                    })
                };
                Ok(Theme {
                    name: name.to_string(),
                    $( $field: get(stringify!($field), &self.$field)?, )*
                })
            }
        }
    };
}

theme_styles!(
    /// Body text.
    text,
    /// Secondary text: labels, hints, empty states.
    muted,
    /// Section headings inside a pane.
    heading,
    /// The top bar.
    title,
    border,
    border_focused,
    /// The selected row.
    selection,
    status_bar,
    /// Keys shown in the status bar and help.
    status_key,
    banner_error,
    banner_info,
    tab_active,
    tab_inactive,
    /// Confidence/coverage below half the threshold.
    confidence_low,
    confidence_mid,
    /// At or above the threshold.
    confidence_high,
    gauge_empty,
    /// The threshold mark on a gauge.
    threshold,
    /// `[n]` in drafts and reports.
    citation,
    /// Quoted spans in a source's text.
    quote,
    search_match,
    kept,
    rejected,
    banned,
    pinned,
    verified,
    unverified,
    decision_continue,
    decision_output,
    decision_ask,
    severity_low,
    severity_medium,
    severity_high,
    severity_critical,
    modal,
    modal_border,
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    /// The embedded theme a user theme with a new name builds on.
    extends: Option<String>,
    #[serde(default)]
    styles: StylesFile,
}

/// Reads a theme file and checks its values where they are written, so
/// that a bad one names its line (after merging, it could not).
fn parse(text: &str, path: &Path) -> Result<ThemeFile, ThemeError> {
    let line = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let file: ThemeFile = toml::from_str(text).map_err(|e| ThemeError::File {
        path: path.to_path_buf(),
        line: e.span().map(|s| line(s.start)),
        message: e.message().trim().to_string(),
    })?;
    match file.styles.first_bad() {
        Some((style, bad)) => Err(ThemeError::Value {
            path: path.to_path_buf(),
            line: line(bad.at),
            key: format!("styles.{style}.{}", bad.field),
            message: bad.message,
        }),
        None => Ok(file),
    }
}

fn embedded(name: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

impl Theme {
    /// The theme `name`: the user's `<config_dir>/themes/<name>.toml` over
    /// the embedded one.
    pub fn load(name: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        let user_path = config_dir.map(|d| d.join("themes").join(format!("{name}.toml")));
        let user = match &user_path {
            Some(p) if p.is_file() => {
                let text = std::fs::read_to_string(p).map_err(|e| ThemeError::File {
                    path: p.clone(),
                    line: None,
                    message: e.to_string(),
                })?;
                Some((p.clone(), parse(&text, p)?))
            }
            _ => None,
        };
        let base_name = match (&user, embedded(name)) {
            (_, Some(_)) => name.to_string(),
            (Some((_, file)), None) => file.extends.clone().unwrap_or_else(|| "dark".into()),
            (None, None) => {
                return Err(ThemeError::Unknown {
                    name: name.to_string(),
                    available: available(config_dir),
                    hint: config_dir.unwrap_or(Path::new(".")).join("themes").join(format!("{name}.toml")),
                });
            }
        };
        let base_text = embedded(&base_name).ok_or_else(|| ThemeError::Unknown {
            name: base_name.clone(),
            available: available(config_dir),
            hint: user_path.clone().unwrap_or_default(),
        })?;
        let base = parse(base_text, Path::new(&format!("<embedded {base_name}>")))?;
        match user {
            None => base.styles.resolve(name, &format!("`{name}` (embedded)")),
            Some((path, file)) => file.styles.merged_over(&base.styles).resolve(name, &path.display().to_string()),
        }
    }

    /// The embedded theme `name`.
    pub fn builtin(name: &str) -> Result<Theme, ThemeError> {
        Self::load(name, None)
    }

    /// The style of a decision.
    pub fn action(&self, action: crate::engine::model::Action) -> Style {
        use crate::engine::model::Action;
        match action {
            Action::Continue => self.decision_continue,
            Action::Output => self.decision_output,
            Action::Ask => self.decision_ask,
        }
    }
}

/// A heading line inside a pane.
pub fn heading(theme: &Theme, text: impl Into<String>) -> ratatui::text::Line<'static> {
    ratatui::text::Line::from(ratatui::text::Span::styled(text.into(), theme.heading))
}

impl Default for Theme {
    fn default() -> Self {
        // The embedded dark theme is complete (tested); should it ever fail,
        // plain terminal colors keep the UI usable.
        Theme::builtin("dark").unwrap_or_else(|_| Theme::plain())
    }
}

/// Every embedded theme plus the user's theme files.
pub fn available(config_dir: Option<&Path>) -> Vec<String> {
    let mut names: Vec<String> = EMBEDDED.iter().map(|(n, _)| n.to_string()).collect();
    if let Some(dir) = config_dir
        && let Ok(entries) = std::fs::read_dir(dir.join("themes"))
    {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml")
                && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
                && !names.iter().any(|n| n == stem)
            {
                names.push(stem.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Modifier};

    use super::*;

    #[test]
    fn embedded_themes_are_complete() {
        for (name, _) in EMBEDDED {
            let t = Theme::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.name, name);
            assert_ne!(t.citation, Style::default(), "{name}: citation has no style");
        }
    }

    #[test]
    fn user_file_overrides_only_what_it_sets() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        std::fs::write(dir.path().join("themes/dark.toml"), "[styles]\ncitation = { fg = \"#ff0000\" }\n").unwrap();
        let base = Theme::builtin("dark").unwrap();
        let t = Theme::load("dark", Some(dir.path())).unwrap();
        assert_eq!(t.citation.fg, Some(Color::Rgb(255, 0, 0)));
        // The base's modifiers on the same style survive; other styles are untouched.
        assert_eq!(t.citation.add_modifier, base.citation.add_modifier);
        assert_eq!(t.rejected, base.rejected);
    }

    #[test]
    fn a_new_user_theme_extends_an_embedded_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        std::fs::write(
            dir.path().join("themes/mine.toml"),
            "extends = \"light\"\n[styles]\nmuted = { modifiers = [\"italic\"] }\n",
        )
        .unwrap();
        let t = Theme::load("mine", Some(dir.path())).unwrap();
        let light = Theme::builtin("light").unwrap();
        assert!(t.muted.add_modifier.contains(Modifier::ITALIC));
        assert_eq!(t.text, light.text);
        assert!(available(Some(dir.path())).contains(&"mine".to_string()));
    }

    #[test]
    fn a_bad_modifier_or_color_names_its_file_line_and_key_and_what_to_write() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        let path = dir.path().join("themes/mine.toml");
        let load = |text: &str| {
            std::fs::write(&path, text).unwrap();
            Theme::load("mine", Some(dir.path())).unwrap_err().to_string()
        };
        let e = load(
            "extends = \"light\"\n\n[styles]\ntext = { fg = \"white\" }\ncitation = { fg = \"cyan\", modifiers = [\"bold\", \"blink\"] }\n",
        );
        assert!(e.contains(&path.display().to_string()) && e.contains("line 5"), "{e}");
        assert!(e.contains("styles.citation.modifiers") && e.contains("`blink`"), "{e}");
        assert!(e.contains("bold, dim, italic, underlined, reversed or crossed_out"), "what to write instead: {e}");
        // A table over several lines: the line of the value itself.
        let e = load("[styles.citation]\nfg = \"cyan\"\nmodifiers = [\n  \"bold\",\n  \"blinking\",\n]\n");
        assert!(e.contains("line 5") && e.contains("styles.citation.modifiers") && e.contains("`blinking`"), "{e}");
        let e = load("[styles]\n\nmuted = { fg = \"blurple\" }\n");
        assert!(e.contains("line 3") && e.contains("styles.muted.fg") && e.contains("`blurple`"), "{e}");
        assert!(e.contains("#rrggbb"), "{e}");
    }

    #[test]
    fn errors_name_the_file_line_and_style() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        std::fs::write(dir.path().join("themes/dark.toml"), "[styles]\n\ncitaton = { fg = \"red\" }\n").unwrap();
        let e = Theme::load("dark", Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("dark.toml") && e.contains("line 3") && e.contains("citaton"), "{e}");
        std::fs::write(dir.path().join("themes/dark.toml"), "[styles]\ncitation = { fg = \"blurple\" }\n").unwrap();
        let e = Theme::load("dark", Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("citation") && e.contains("blurple"), "{e}");
        let e = Theme::load("nope", Some(dir.path())).unwrap_err().to_string();
        assert!(e.contains("unknown theme `nope`") && e.contains("high-contrast"), "{e}");
    }
}
