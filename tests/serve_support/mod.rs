//! The real `sleuth` binary serving on a free loopback port, and the
//! fixture corpora the serve and MCP tests research.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// Six pages on two meanings of one word: the built-in reasoner asks which.
pub fn mercury_docs(root: &Path) {
    let planet = [
        (
            "planet/overview.md",
            "Mercury the planet",
            "Mercury is the smallest planet of the solar system and the closest planet to the sun. Its orbit around the sun takes eighty-eight days, the shortest orbit of any planet. The surface of the planet is covered in craters.",
        ),
        (
            "planet/orbit.md",
            "The orbit of Mercury",
            "Mercury moves on an eccentric orbit around the sun. Astronomers measured the precession of its orbit, which general relativity explained. The planet has almost no atmosphere, so craters and cliffs cover its surface.",
        ),
        (
            "planet/missions.md",
            "Missions to Mercury",
            "Two spacecraft have visited the planet Mercury: one flew past the planet three times and another orbited it for years. They mapped the craters of the planet and studied how the sun heats its surface during its orbit.",
        ),
    ];
    let metal = [
        (
            "element/overview.md",
            "Mercury the element",
            "Mercury is a chemical element and the only metal that is liquid at room temperature. The liquid metal is dense and silvery, and it was once common in thermometers. Mercury vapour is toxic, so the metal must be handled with care.",
        ),
        (
            "element/toxicity.md",
            "Toxicity of mercury",
            "Mercury compounds are toxic to the nervous system. The metal and its vapour accumulate in fish, and eating contaminated fish is the main way people take in the element. Old thermometers release the toxic liquid when they break.",
        ),
        (
            "element/uses.md",
            "Uses of mercury",
            "The liquid metal mercury was used in thermometers, barometers and dental fillings. Gold miners mix the element with ore because the metal dissolves gold, which releases toxic vapour. Many countries have since banned the metal in thermometers.",
        ),
    ];
    for (rel, title, text) in planet.iter().chain(metal.iter()) {
        write(root, rel, format!("# {title}\n\n{text}\n"));
    }
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
