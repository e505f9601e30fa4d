//! Drives the real binary in a private tmux server: start it, send keys,
//! read the screen. Every tmux command runs under a time limit; the server
//! (and the binary in it) is killed when the test ends.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::bin::{TOOL_LIMIT, hermetic, output_of, sleuth_path, wait_limited};

pub struct Tmux {
    socket: String,
}

pub fn available() -> bool {
    output_of(Command::new("tmux").arg("-V"), TOOL_LIMIT).is_ok_and(|o| o.status.success())
}

impl Tmux {
    /// Runs `sleuth args…` with `SLEUTH_HOME=home` in a `width`×`height` pane.
    pub fn start(name: &str, home: &Path, args: &[&str], width: u16, height: u16) -> Tmux {
        let socket = format!("sleuth-test-{name}-{}", std::process::id());
        let bin = sleuth_path();
        let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
        let script = format!(
            "export SLEUTH_HOME='{}'; export TERM=xterm-256color; '{}' {}; echo \"[exit $?]\"; sleep 600",
            home.display(),
            bin.display(),
            quoted.join(" ")
        );
        let t = Tmux { socket };
        // The server started here keeps this environment: the binary's clean one.
        t.tmux_in(
            home,
            &[
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
            ],
        );
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out =
            output_of(Command::new("tmux").arg("-L").arg(&self.socket).args(args), TOOL_LIMIT).expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `tmux args…` with the environment of the binary's other children.
    fn tmux_in(&self, home: &Path, args: &[&str]) -> String {
        let mut cmd = Command::new("tmux");
        hermetic(&mut cmd, home).arg("-L").arg(&self.socket).args(args);
        let out = output_of(&mut cmd, TOOL_LIMIT).expect("tmux runs");
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
    /// Kills the server without failing: this runs while a failed test unwinds.
    fn drop(&mut self) {
        let mut cmd = Command::new("tmux");
        cmd.arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let Ok(mut kill) = cmd.spawn() else { return };
        if wait_limited(&mut kill, TOOL_LIMIT).is_none() {
            let _ = kill.kill();
            let _ = kill.wait();
        }
    }
}

impl Tmux {
    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&["resize-window", "-t", "main", "-x", &width.to_string(), "-y", &height.to_string()]);
    }
}
