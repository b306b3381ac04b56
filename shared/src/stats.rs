//! `stats.json` in the data dir: gain accounting's totals and tables. The daemon
//! writes it (`lean-ctxd`'s gain module), `lean-ctx gain` and the JetBrains plugin's
//! status bar read it (the plugin extracts the three `total_*` keys).

use std::{collections::BTreeMap, path::Path};

use serde::{Deserialize, Serialize};

pub const FILE_NAME: &str = "stats.json";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub commands: u64,
    pub errors: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Counts {
    pub fn add(&mut self, input: u64, output: u64, error: bool) {
        self.commands += 1;
        self.errors += u64::from(error);
        self.input_tokens += input;
        self.output_tokens += output;
    }
}

/// `stats.json`. The three `total_*` keys are what the plugin reads; the tables feed
/// `lean-ctx gain`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub total_commands: u64,
    #[serde(default)]
    pub total_errors: u64,
    #[serde(default)]
    pub commands: BTreeMap<String, Counts>,
    /// By UTC day, `YYYY-MM-DD`.
    #[serde(default)]
    pub daily: BTreeMap<String, Counts>,
    /// By absolute path.
    #[serde(default)]
    pub files: BTreeMap<String, Counts>,
}

impl Stats {
    /// Reads `stats.json` in `data_dir`; missing or unreadable is empty.
    pub fn read(data_dir: &Path) -> Stats {
        std::fs::read(data_dir.join(FILE_NAME))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }
}
