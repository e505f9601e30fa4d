//! One template per role, embedded in the binary (`prompts/*.md`) and
//! overridable by a file of the same name in `<config dir>/prompts/`
//! (`$SLEUTH_HOME/prompts/plan.md`, …). A template holds the role's
//! instructions; the data (question, sources, …) and the reply format are
//! added by code, so an override cannot drop the rule that sources are data.

use std::path::{Path, PathBuf};

use super::error::SetupError;
use crate::engine::model::Role;

/// Placeholders a template may use.
pub const PLACEHOLDERS: &[&str] = &["max_queries"];

fn builtin(role: Role) -> &'static str {
    match role {
        Role::Plan => include_str!("../../prompts/plan.md"),
        Role::Review => include_str!("../../prompts/review.md"),
        Role::Draft => include_str!("../../prompts/draft.md"),
        Role::Critique => include_str!("../../prompts/critique.md"),
        Role::Write => include_str!("../../prompts/write.md"),
        Role::Clarify => include_str!("../../prompts/clarify.md"),
    }
}

/// Where the override templates live.
pub fn prompts_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("prompts")
}

#[derive(Debug, Clone)]
pub struct Prompts {
    templates: Vec<(Role, String, Option<PathBuf>)>,
}

impl Prompts {
    /// The embedded templates only.
    pub fn builtin() -> Self {
        Self { templates: Role::ALL.iter().map(|r| (*r, builtin(*r).to_string(), None)).collect() }
    }

    /// The embedded templates, each replaced by `<dir>/<role>.md` if present.
    pub fn load(dir: &Path) -> Result<Self, SetupError> {
        let mut templates = Vec::new();
        for role in Role::ALL {
            let path = dir.join(format!("{role}.md"));
            if !path.exists() {
                templates.push((role, builtin(role).to_string(), None));
                continue;
            }
            let err = |message: String| SetupError::Prompt { path: path.display().to_string(), message };
            let text = std::fs::read_to_string(&path).map_err(|e| err(format!("cannot read it: {e}")))?;
            if text.trim().is_empty() {
                return Err(err("the file is empty; delete it to use the built-in template".into()));
            }
            if let Some(unknown) = placeholders(&text).into_iter().find(|p| !PLACEHOLDERS.contains(&p.as_str())) {
                return Err(err(format!(
                    "unknown placeholder {{{{{unknown}}}}}; known placeholders: {}",
                    PLACEHOLDERS.iter().map(|p| format!("{{{{{p}}}}}")).collect::<Vec<_>>().join(", ")
                )));
            }
            tracing::info!(role = %role, path = %path.display(), "prompt template overridden");
            templates.push((role, text, Some(path)));
        }
        Ok(Self { templates })
    }

    fn entry(&self, role: Role) -> Option<&(Role, String, Option<PathBuf>)> {
        self.templates.iter().find(|(r, _, _)| *r == role)
    }

    /// The file that overrides `role`'s template, if any.
    pub fn origin(&self, role: Role) -> Option<&Path> {
        self.entry(role).and_then(|(_, _, p)| p.as_deref())
    }

    /// The template with its placeholders filled.
    pub fn render(&self, role: Role, vars: &[(&str, String)]) -> String {
        let mut text = self.entry(role).map_or_else(|| builtin(role).to_string(), |(_, t, _)| t.clone());
        for (k, v) in vars {
            text = text.replace(&format!("{{{{{k}}}}}"), v);
        }
        text.trim().to_string()
    }
}

/// Names inside `{{…}}`.
fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_templates_are_embedded_and_filled() {
        let p = Prompts::builtin();
        for role in Role::ALL {
            let t = p.render(role, &[("max_queries", "4".into())]);
            assert!(t.starts_with(&format!("# {}", role.as_str().to_uppercase())), "{role}: {t}");
            assert!(!t.contains("{{"), "{role} has an unfilled placeholder");
        }
        assert!(p.render(Role::Plan, &[("max_queries", "4".into())]).contains("at most 4"));
    }

    #[test]
    fn a_file_in_the_config_dir_overrides_its_role() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("critique.md"), "# CRITIQUE\nBe kind but firm.").unwrap();
        let p = Prompts::load(dir.path()).unwrap();
        assert_eq!(p.render(Role::Critique, &[]), "# CRITIQUE\nBe kind but firm.");
        assert_eq!(p.origin(Role::Critique), Some(dir.path().join("critique.md").as_path()));
        assert_eq!(p.origin(Role::Plan), None);
        assert!(p.render(Role::Plan, &[]).contains("planner"));
    }

    #[test]
    fn bad_overrides_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plan.md"), "Plan {{max_querys}} searches").unwrap();
        let err = Prompts::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("plan.md") && err.contains("{{max_querys}}") && err.contains("{{max_queries}}"), "{err}");
        std::fs::write(dir.path().join("plan.md"), "  \n").unwrap();
        assert!(Prompts::load(dir.path()).unwrap_err().to_string().contains("empty"));
    }
}
