//! The configuration a recorded session continues under (resume, fork,
//! follow-up).

use crate::config::{Config, ConfigError, LimitOverrides, Overrides};
use crate::engine::protocol::SessionHeader;

/// The configuration a recorded session continues under. Every session
/// header holds the effective configuration it started with (secret-free:
/// only the names of key variables); resume, fork and follow-up use it, so
/// a session started with `--preset deep --reasoner llm` goes on that way,
/// and `--set` given to the command overrides it for that run. Only the
/// display preferences ([tui], [log]) and the serve settings come from the
/// current configuration. The second value says why the record could not
/// be read, when it could not.
pub fn recorded_config(
    current: &Config,
    header: &SessionHeader,
    overrides: &Overrides,
) -> Result<(Config, Option<String>), ConfigError> {
    let (mut base, warning) = match serde_json::from_value::<Config>(header.config.clone()) {
        Ok(recorded) => (recorded, None),
        Err(e) => {
            // Written by a sleuth with other config keys: keep what the
            // header states outright (preset, limits, step mode).
            let mut c = current.clone();
            if let Some(p) = header.preset.named() {
                c.research.preset = p;
            }
            let l = &header.limits;
            c.limits = LimitOverrides {
                max_iterations: Some(l.max_iterations),
                max_queries: Some(l.max_queries),
                max_sources: Some(l.max_sources),
                time_limit_secs: Some(l.time_limit_secs),
                cost_budget_usd: Some(l.cost_budget_usd),
                token_budget: Some(l.token_budget),
            };
            c.research.step_mode = header.step_mode;
            let warning = format!(
                "the session's recorded configuration could not be read ({e}); continuing under the current configuration with the session's preset and limits"
            );
            (c, Some(warning))
        }
    };
    base.tui = current.tui.clone();
    base.log = current.log.clone();
    base.serve = current.serve.clone();
    let config = overrides.apply_to(&base)?;
    Ok((config, warning))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Preset;
    use crate::engine::protocol::{Limits, SCHEMA_VERSION};

    fn header(config: serde_json::Value) -> SessionHeader {
        SessionHeader {
            schema_version: SCHEMA_VERSION,
            sleuth_version: "0".into(),
            session_id: "s".into(),
            question: "q".into(),
            preset: "simple".into(),
            limits: Limits {
                max_iterations: 7,
                max_queries: 3,
                max_sources: 5,
                time_limit_secs: 60,
                cost_budget_usd: 0.5,
                token_budget: 1,
            },
            step_mode: false,
            reasoner: "builtin".into(),
            providers: vec![],
            config,
            forked_from: None,
            follow_up_of: None,
            imported: None,
        }
    }

    #[test]
    fn the_recorded_configuration_wins_over_the_current_and_flags_over_both() {
        let mut recorded = Config::default();
        recorded.research.preset = Preset::Deep;
        recorded.decide.coverage_threshold = 0.4;
        let current = Config::default();
        let mut flags = Overrides::default();
        flags.parse_set("decide.confidence_threshold=0.6").expect("flag");
        let (c, warning) = recorded_config(&current, &header(recorded.snapshot()), &flags).expect("config");
        assert_eq!(c.research.preset, Preset::Deep);
        assert_eq!(c.decide.coverage_threshold, 0.4);
        assert_eq!(c.decide.confidence_threshold, 0.6);
        assert!(warning.is_none());
    }

    #[test]
    fn an_unreadable_record_keeps_the_headers_limits() {
        let (c, warning) =
            recorded_config(&Config::default(), &header(serde_json::json!({"nope": 1})), &Overrides::default())
                .expect("config");
        assert!(warning.is_some());
        assert_eq!(c.research.preset, Preset::Simple);
        assert_eq!(c.limits.resolve(Preset::Simple).max_iterations, 7);
    }
}
