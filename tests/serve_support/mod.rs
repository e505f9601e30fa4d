//! The real `sleuth` binary serving on a free loopback port, and the
//! fixture corpora the serve and MCP tests research.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "../corpora/mercury.rs"]
mod mercury;
pub use mercury::mercury_docs;

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// A running `sleuth serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
    pub stderr: Arc<Mutex<String>>,
}

impl Server {
    /// `sleuth serve` on 127.0.0.1 port 0 with `args` (after `serve`) and `envs`.
    pub fn start(home: &Path, args: &[&str], envs: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("sleuth"));
        cmd.env("SLEUTH_HOME", home)
            .env_remove("SLEUTH_SERVE_TOKEN")
            .arg("serve")
            .args(["--bind", "127.0.0.1:0"])
            .args(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawn");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut seen = String::new();
        let base = loop {
            let mut line = String::new();
            let n = reader.read_line(&mut line).expect("read stderr");
            assert!(n > 0, "the server stopped before listening: {seen}");
            seen.push_str(&line);
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.split_whitespace().next().expect("address").to_string();
            }
        };
        let stderr = Arc::new(Mutex::new(seen));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                sink.lock().expect("lock").push_str(&(line + "\n"));
            }
        });
        Server { child, base, stderr }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends SIGTERM and waits for the exit.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: signals the child this test started.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not stop: {}", self.stderr.lock().expect("lock"));
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `sleuth args…` with `SLEUTH_HOME` = `home`: (exit code, stdout, stderr).
pub fn sleuth(home: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("sleuth"))
        .env("SLEUTH_HOME", home)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `sleuth sessions --json`, parsed.
pub fn listed(home: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = sleuth(home, &["sessions", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).expect("json list")
}

pub fn session_dirs(home: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(home.join("sessions")) else { return Vec::new() };
    entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect()
}

pub fn corpus_flag(root: &Path) -> String {
    format!("local.corpus={}", root.display())
}

/// Copies every file under `from` into `to` (same relative paths).
pub fn copy_into(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        let rel = entry.path().strip_prefix(from).expect("under");
        let target = to.join(rel);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(entry.path(), target).expect("copy");
    }
}
