//! The terminal UI. `App::update` is pure (messages in, effects out as
//! data); the views are functions of `&App`; one `tokio::select!` loop
//! (`runner`) feeds terminal and engine events in and carries effects out.

pub mod app;
mod config;
pub mod keymap;
pub mod msg;
#[doc(hidden)]
pub mod sample;
pub mod text;
pub mod theme;
pub mod ui;

pub use config::{KeyConfig, TuiConfig};
pub use app::App;
pub use keymap::Keymap;
pub use msg::{Effect, Msg, PromptAnswer};
pub use theme::Theme;
