//! `[tui]`: the theme and the key bindings, one table per mode. Every
//! binding has a default (listed in `config.toml.example`); a user table
//! replaces only the actions it names. Declared in the config layer (with
//! the keymap that checks it), which needs nothing from the TUI above it.

use serde::{Deserialize, Serialize};

use super::keymap::Action;

/// `[tui]`: appearance and keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TuiConfig {
    /// `dark`, `light`, `high-contrast`, or a file `themes/<name>.toml` in the config dir.
    pub theme: String,
    pub keys: KeyConfig,
}

impl Default for TuiConfig {
    fn default() -> Self {
        Self { theme: "dark".into(), keys: KeyConfig::default() }
    }
}

/// Declares one `[tui.keys.<mode>]` table: a field per action with its
/// default keys, and the list of (name, action, keys) the keymap is built from.
macro_rules! key_table {
    ($(#[$doc:meta])* $name:ident { $( $field:ident => $action:ident = [$($key:literal),* $(,)?] ),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( pub $field: Vec<String>, )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: vec![$($key.to_string()),*], )* }
            }
        }

        impl $name {
            /// (config name, action, keys) for every action of this mode.
            pub fn bindings(&self) -> Vec<(&'static str, Action, &[String])> {
                vec![$( (stringify!($field), Action::$action, self.$field.as_slice()), )*]
            }
        }
    };
}

key_table!(
    /// Everywhere except while typing text.
    GlobalKeys {
        quit => Quit = ["q"],
        help => Help = ["?"],
        back => Back = ["esc"],
    }
);

key_table!(
    /// Moving around the panes (live and review).
    MainKeys {
        focus_next => FocusNext = ["tab"],
        focus_prev => FocusPrev = ["backtab"],
        up => Up = ["k", "up"],
        down => Down = ["j", "down"],
        page_up => PageUp = ["pageup", "ctrl-u"],
        page_down => PageDown = ["pagedown", "ctrl-d"],
        top => Top = ["g", "home"],
        bottom => Bottom = ["G", "end"],
        iteration_prev => IterationPrev = ["h", "left"],
        iteration_next => IterationNext = ["l", "right"],
        open => Open = ["enter"],
        search => Search = ["/"],
        search_next => SearchNext = ["n"],
        search_prev => SearchPrev = ["N"],
        confidence => Breakdown = ["c"],
        export => Export = ["w"],
    }
);

key_table!(
    /// Controlling a live session.
    ControlKeys {
        step => Step = ["s"],
        auto => Auto = ["a"],
        force_output => ForceOutput = ["o"],
        cancel => Cancel = ["x"],
        steer => Steer = ["e"],
        ban_source => Ban = ["b"],
        pin_source => Pin = ["p"],
        answer => Answer = ["r"],
    }
);

key_table!(
    /// The ASK modal.
    AskKeys {
        up => Up = ["k", "up"],
        down => Down = ["j", "down"],
        choose => Open = ["enter"],
        hide => Back = ["esc"],
    }
);

key_table!(
    /// The steering panel at a step pause.
    SteerKeys {
        up => Up = ["k", "up"],
        down => Down = ["j", "down"],
        edit_query => EditQuery = ["e", "enter"],
        delete_query => DeleteQuery = ["d"],
        add_query => AddQuery = ["a"],
        add_note => AddNote = ["n"],
        step => Step = ["s"],
        close => Back = ["esc"],
    }
);

key_table!(
    /// Any text box (question, free-text answer, query, note, search).
    EditorKeys {
        submit => Submit = ["enter"],
        newline => Newline = ["alt-enter", "ctrl-j"],
        cancel => Back = ["esc"],
    }
);

key_table!(
    /// The question prompt (on top of the editor keys).
    PromptKeys {
        preset => CyclePreset = ["ctrl-p"],
        source_mode => CycleSourceMode = ["ctrl-o"],
        step_mode => ToggleStepMode = ["ctrl-t"],
    }
);

/// `[tui.keys.*]`: key bindings per mode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeyConfig {
    pub global: GlobalKeys,
    pub main: MainKeys,
    pub control: ControlKeys,
    pub ask: AskKeys,
    pub steer: SteerKeys,
    pub editor: EditorKeys,
    pub prompt: PromptKeys,
}
