//! Where sleuth keeps things. `SLEUTH_HOME` puts everything under one
//! folder (tests use it); otherwise the platform's directories are used.

use std::path::{Path, PathBuf};

/// The folders sleuth reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// `config.toml`, prompt and theme overrides.
    pub config_dir: PathBuf,
    /// Sessions, the corpus index, reflexion memory.
    pub data_dir: PathBuf,
    /// Log files.
    pub state_dir: PathBuf,
}

impl Paths {
    /// From `SLEUTH_HOME` if set, else the platform's project directories.
    pub fn discover() -> Result<Self, String> {
        if let Some(home) = std::env::var_os("SLEUTH_HOME").filter(|v| !v.is_empty()) {
            return Ok(Self::under(Path::new(&home)));
        }
        let dirs = directories::ProjectDirs::from("", "", "sleuth")
            .ok_or("no home directory found; set SLEUTH_HOME to a folder sleuth may use")?;
        let state = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_path_buf();
        Ok(Self {
            config_dir: dirs.config_dir().to_path_buf(),
            data_dir: dirs.data_dir().to_path_buf(),
            state_dir: state,
        })
    }

    /// Everything under one folder.
    pub fn under(home: &Path) -> Self {
        Self { config_dir: home.to_path_buf(), data_dir: home.to_path_buf(), state_dir: home.join("logs") }
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data_dir.join("sessions")
    }

    pub fn index_dir(&self) -> PathBuf {
        self.data_dir.join("index")
    }

    pub fn memory_file(&self) -> PathBuf {
        self.data_dir.join("memory.jsonl")
    }

    pub fn log_dir(&self) -> PathBuf {
        self.state_dir.clone()
    }
}
