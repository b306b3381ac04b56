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
    /// Counts one call: in the totals, under its action and `day`, and under `file`.
    pub fn count(
        &mut self,
        action: &str,
        day: &str,
        file: Option<&str>,
        tokens: (u64, u64),
        error: bool,
    ) {
        let (input, output) = tokens;
        self.total_input_tokens += input;
        self.total_output_tokens += output;
        self.total_commands += 1;
        self.total_errors += u64::from(error);
        let tables = [
            Some((&mut self.commands, action)),
            Some((&mut self.daily, day)),
            file.map(|f| (&mut self.files, f)),
        ];
        for (table, key) in tables.into_iter().flatten() {
            table
                .entry(key.to_string())
                .or_default()
                .add(input, output, error);
        }
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &Stats) {
        self.total_input_tokens += other.total_input_tokens;
        self.total_output_tokens += other.total_output_tokens;
        self.total_commands += other.total_commands;
        self.total_errors += other.total_errors;
        for (table, theirs) in [
            (&mut self.commands, &other.commands),
            (&mut self.daily, &other.daily),
            (&mut self.files, &other.files),
        ] {
            for (key, c) in theirs {
                let ours = table.entry(key.clone()).or_default();
                ours.commands += c.commands;
                ours.errors += c.errors;
                ours.input_tokens += c.input_tokens;
                ours.output_tokens += c.output_tokens;
            }
        }
    }

    /// Reads `stats.json` in `data_dir`; missing or unreadable is empty.
    pub fn read(data_dir: &Path) -> Stats {
        std::fs::read(data_dir.join(FILE_NAME))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }
}
