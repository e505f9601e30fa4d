//! End-to-end helpers: a small corpus folder, long-session flags, and
//! killing the real binary part-way through a session.

use std::path::Path;

use sleuth::session::SessionDir;

/// A small corpus folder: 24 pages about widgets and gadgets.
pub fn write_corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 1..=24 {
        let text = format!(
            "# Widget model {i}\n\nWidget {i} connects to gadget {g} through a bus of width {w} bits. \
             The connection was measured in lab {i} on day {d}.\n\n## Latency\n\nThe latency of widget {i} is {l} \
             microseconds under load, and gadget {g} buffers up to {b} frames. Engineers in lab {i} recommend pairing \
             widget {i} with gadget {g2} when throughput matters more than latency.\n\n## Power\n\nWidget {i} draws \
             {p} milliwatts; the gadget side adds {q} milliwatts. Thermal limits apply above {t} degrees.\n",
            g = i * 7,
            w = i * 2,
            d = i * 3,
            l = i * 5,
            b = i * 11,
            g2 = i * 7 + 1,
            p = i * 13,
            q = i * 3,
            t = 40 + i
        );
        std::fs::write(dir.join(format!("doc{i}.md")), text).unwrap();
    }
}

/// Flags for a session of several iterations on `corpus`: thresholds it
/// cannot meet, so only convergence or the iteration limit stop it.
pub fn long_session(corpus: &Path) -> Vec<String> {
    let mut args = vec!["--set".to_string(), format!("local.corpus={}", corpus.display())];
    for set in [
        "decide.confidence_threshold=1.0",
        "decide.coverage_threshold=1.0",
        "decide.diminishing_returns_window=50",
        "decide.severity_plateau_window=50",
    ] {
        args.extend(["--set".to_string(), set.to_string()]);
    }
    args.extend(["--max-iterations", "8", "--time-limit", "0"].map(String::from));
    args
}

pub fn session_ids(home: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(home.join("sessions"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    ids.retain(|n| !n.starts_with('.'));
    ids.sort();
    ids
}

/// Starts `sleuth args…` and SIGKILLs it once its session log has at least
/// `lines` lines. Returns the session id and the complete lines written
/// before the kill, or None when the session ended first (its folder is
/// then removed when `discard_finished`).
pub fn kill_after(home: &Path, args: &[String], lines: usize, discard_finished: bool) -> Option<(String, Vec<String>)> {
    let mut child = super::bin::spawn(
        super::bin::sleuth_command(home)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut id = None;
    loop {
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the session never got going");
        }
        if id.is_none() {
            id = session_ids(home).into_iter().next();
        }
        if let Some(id) = &id {
            let log = std::fs::read(SessionDir::new(&home.join("sessions"), id).log_path()).unwrap_or_default();
            if log.iter().filter(|b| **b == b'\n').count() >= lines {
                child.kill().unwrap(); // SIGKILL
                break;
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    child.wait().unwrap();
    let id = id?;
    let text =
        String::from_utf8(std::fs::read(SessionDir::new(&home.join("sessions"), &id).log_path()).unwrap()).unwrap();
    let complete: Vec<String> = text.split_inclusive('\n').filter(|l| l.ends_with('\n')).map(String::from).collect();
    if complete.iter().any(|l| l.contains("\"type\":\"session_ended\"")) {
        if discard_finished {
            std::fs::remove_dir_all(home.join("sessions").join(&id)).unwrap();
        }
        return None;
    }
    Some((id, complete))
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub fn log_lines(home: &Path, id: &str) -> Vec<String> {
    let text = std::fs::read_to_string(SessionDir::new(&home.join("sessions"), id).log_path()).unwrap();
    text.split_inclusive('\n').map(String::from).collect()
}

pub fn files_under(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { stack.push(path) } else { out.push(path) }
        }
    }
    out
}
