//! The real `sleuth` binary serving on a free loopback port, and the
//! fixture corpora the serve and MCP tests research.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::bin::Spawned;

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// A running `sleuth serve`; killed when dropped (its child is [`Spawned`]).
pub struct Server {
    pub child: Spawned,
    pub base: String,
    pub stderr: Arc<Mutex<String>>,
    pub lines: super::bin::Lines,
}

impl Server {
    /// `sleuth serve` on 127.0.0.1 port 0 with `args` (after `serve`) and
    /// `envs`, once it is ready to research (its index built).
    pub fn start(home: &Path, args: &[&str], envs: &[(&str, &str)]) -> Server {
        let server = Self::listening(home, args, envs);
        server.lines.wait_for("sleuth serve: ready", Duration::from_secs(300));
        server
    }

    /// `start`, returning as soon as the server listens (its index may
    /// still be building).
    pub fn listening(home: &Path, args: &[&str], envs: &[(&str, &str)]) -> Server {
        let mut cmd = super::bin::sleuth_command(home);
        cmd.arg("serve").args(["--bind", "127.0.0.1:0"]).args(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = super::bin::spawn(&mut cmd);
        let lines = super::bin::Lines::follow(child.stderr.take().expect("stderr"));
        let line = lines.wait_for("listening on ", Duration::from_secs(120));
        let rest = line.split("listening on ").nth(1).unwrap_or_default();
        let base = rest.split_whitespace().next().expect("address").to_string();
        Server { child, base, stderr: lines.seen.clone(), lines }
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

/// `sleuth sessions --json`, parsed.
pub fn listed(home: &Path) -> Vec<serde_json::Value> {
    let ran = super::bin::sleuth(home, &["sessions", "--json"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    serde_json::from_str(&ran.stdout).expect("json list")
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
