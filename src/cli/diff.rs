//! `sleuth diff A B`: claim by claim, what changed between two sessions
//! (a fork, a re-run, a follow-up): claims added, removed and reworded,
//! sources gained and lost, each confidence component before and after.

use std::io::Write;

use super::args::DiffArgs;
use super::{GlobalArgs, exit, setup};
use crate::text::sanitize_inline;
use crate::verify::diff::{Change, SessionDiff, diff};

pub fn execute(global: &GlobalArgs, args: DiffArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let sessions = setup::sessions(&setup);
    let (a, b) = (sessions.replay(&args.a)?, sessions.replay(&args.b)?);
    let d = diff(&a.id, &a.state, &b.id, &b.state);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &d)?;
        writeln!(out)?;
    } else {
        print(&mut out, &d)?;
    }
    Ok(exit::OK)
}

fn print(out: &mut impl Write, d: &SessionDiff) -> std::io::Result<()> {
    writeln!(
        out,
        "A {} — {} ({} claims from its {})",
        d.a.id,
        sanitize_inline(&d.a.question),
        d.a.claims,
        d.a.claims_from
    )?;
    writeln!(
        out,
        "B {} — {} ({} claims from its {})",
        d.b.id,
        sanitize_inline(&d.b.question),
        d.b.claims,
        d.b.claims_from
    )?;
    writeln!(out, "{}", d.relation)?;
    writeln!(out)?;
    writeln!(out, "Claims")?;
    for c in &d.claims {
        let text = |t: &Option<String>| sanitize_inline(t.as_deref().unwrap_or(""));
        match c.change {
            Change::Same => writeln!(out, "  = {}", text(&c.after))?,
            Change::Reworded => {
                writeln!(out, "  ~ {}", text(&c.before))?;
                writeln!(out, "    → {} (similarity {:.2})", text(&c.after), c.similarity)?;
            }
            Change::Added => writeln!(out, "  + {}", text(&c.after))?,
            Change::Removed => writeln!(out, "  - {}", text(&c.before))?,
        }
        if c.change != Change::Added && c.change != Change::Removed && c.sources_before != c.sources_after {
            writeln!(out, "    sources {:?} → {:?}", c.sources_before, c.sources_after)?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Sources: {} kept, {} gained, {} lost",
        d.sources_kept,
        d.sources_gained.len(),
        d.sources_lost.len()
    )?;
    for s in &d.sources_gained {
        writeln!(out, "  + [{}] {} — {}", s.id, sanitize_inline(&s.title), sanitize_inline(&s.locator))?;
    }
    for s in &d.sources_lost {
        writeln!(out, "  - [{}] {} — {}", s.id, sanitize_inline(&s.title), sanitize_inline(&s.locator))?;
    }
    writeln!(out)?;
    writeln!(out, "Scores (A → B)")?;
    let num = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
    for s in &d.scores {
        let delta = match (s.before, s.after) {
            (Some(x), Some(y)) => format!(" ({:+.2})", y - x),
            _ => String::new(),
        };
        writeln!(out, "  {:<20} {} → {}{delta}", s.name, num(s.before), num(s.after))?;
    }
    Ok(())
}
