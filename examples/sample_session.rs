//! Writes a finished sample session (hand-made events, the same ones the
//! TUI's tests use) to `<SLEUTH_HOME>/sessions/<id>`, for benchmarks and
//! screenshots: `cargo run --example sample_session -- <home> [iterations]`.

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(home) = args.next() else {
        eprintln!("usage: sample_session <sleuth home> [iterations]");
        std::process::exit(2);
    };
    let iterations = args.next().and_then(|n| n.parse().ok()).unwrap_or(3);
    let id = "20260101-000000-abcd";
    let dir = std::path::Path::new(&home).join("sessions").join(id);
    sleuth::tui::sample::Sample { iterations, ..Default::default() }.write_to(&dir)?;
    println!("{id}");
    Ok(())
}
