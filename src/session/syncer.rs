//! Syncing the log to disk off the engine's path. A sync costs
//! milliseconds on a busy or virtual disk (4 ms here), which would dwarf
//! the microseconds an event costs to write; and what a sync adds is
//! safety against a crash of the whole machine (a killed process loses
//! nothing that was flushed). So a checkpoint asks this thread to sync and
//! the loop goes on; syncs requested while one runs are merged into the
//! next; closing waits for the last one, and a failed sync is reported at
//! the next write.

use std::fs::File;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

pub struct BackgroundSync {
    requests: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    error: Arc<Mutex<Option<std::io::Error>>>,
}

impl BackgroundSync {
    /// Syncs `file` (a handle to the log) whenever asked.
    pub fn start(file: File) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel::<()>();
        let error = Arc::new(Mutex::new(None));
        let failed = error.clone();
        let thread = std::thread::Builder::new().name("sleuth-log-sync".into()).spawn(move || {
            while rx.recv().is_ok() {
                // Requests that piled up during the last sync need one more, not many.
                while rx.try_recv().is_ok() {}
                if let Err(e) = file.sync_data()
                    && let Ok(mut slot) = failed.lock()
                {
                    slot.get_or_insert(e);
                }
            }
        })?;
        Ok(Self { requests: Some(tx), thread: Some(thread), error })
    }

    /// Asks for a sync of everything written so far.
    pub fn request(&self) -> std::io::Result<()> {
        self.take_error()?;
        if let Some(tx) = &self.requests {
            // The thread only stops when we drop the sender.
            let _ = tx.send(());
        }
        Ok(())
    }

    /// The first sync failure since the last call, if any.
    pub fn take_error(&self) -> std::io::Result<()> {
        match self.error.lock().ok().and_then(|mut e| e.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Waits for the requested syncs to finish.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.requests = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.take_error()
    }
}

impl Drop for BackgroundSync {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            tracing::warn!(error = %e, "the session log could not be synced to disk");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn syncs_on_request_and_finishes_before_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut file = File::create(&path).unwrap();
        let mut sync = BackgroundSync::start(file.try_clone().unwrap()).unwrap();
        for i in 0..100 {
            writeln!(file, "line {i}").unwrap();
            sync.request().unwrap();
        }
        sync.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 100);
        // After finishing, requests are accepted and ignored.
        sync.request().unwrap();
    }
}
