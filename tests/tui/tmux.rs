//! Drives the real binary in a private tmux server: start it, send keys,
//! read the screen.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    socket: String,
}

pub fn available() -> bool {
    Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success())
}

impl Tmux {
    /// Runs `sleuth args…` with `SLEUTH_HOME=home` in a `width`×`height` pane.
    pub fn start(name: &str, home: &Path, args: &[&str], width: u16, height: u16) -> Tmux {
        let socket = format!("sleuth-test-{name}-{}", std::process::id());
        let bin = env!("CARGO_BIN_EXE_sleuth");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
        let script = format!(
            "export SLEUTH_HOME='{}'; export TERM=xterm-256color; '{bin}' {}; echo \"[exit $?]\"; sleep 600",
            home.display(),
            quoted.join(" ")
        );
        let t = Tmux { socket };
        t.tmux(&[
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "sh",
            "-c",
            &script,
        ]);
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Keys by tmux name (`Enter`, `Left`, `Escape`, `C-c`) or literal text.
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "main", k]);
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "main", "-l", text]);
        std::thread::sleep(Duration::from_millis(60));
    }

    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "main"])
    }

    /// The screen with its colours and attributes as escape sequences.
    pub fn styled_screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-t", "main"])
    }

    /// Waits until the screen contains every one of `needles`; the screen.
    pub fn wait_for(&self, needles: &[&str], timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if needles.iter().all(|n| screen.contains(n)) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {needles:?}; the screen was:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The title the program set with OSC 0/2 (if any).
    pub fn pane_title(&self) -> String {
        self.tmux(&["display-message", "-p", "-t", "main", "#{pane_title}"])
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").output();
    }
}

impl Tmux {
    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&["resize-window", "-t", "main", "-x", &width.to_string(), "-y", &height.to_string()]);
    }
}
