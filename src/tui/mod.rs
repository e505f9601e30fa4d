//! The terminal UI. `App::update` is pure (messages in, effects out as
//! data); the views are functions of `&App`; one `tokio::select!` loop
//! (`runner`) feeds terminal and engine events in and carries effects out.

mod config;
pub mod keymap;
#[doc(hidden)]
pub mod sample;
pub mod text;
pub mod theme;

pub use config::{KeyConfig, TuiConfig};
pub use keymap::Keymap;
pub use theme::Theme;
