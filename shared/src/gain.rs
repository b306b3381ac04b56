//! The gain report (docs/ide-wire.md, `lean-ctx gain --json`), computed from `stats.json`'s [`Stats`]: what
//! `lean-ctx gain --json` prints and the daemon's dashboard serves. One implementation
//! in this crate so the two can never disagree on a number.
//!
//! Keys are the ones the JetBrains plugin's Gain tool window reads:
//! `summary{model{model_key}, tokens_saved, gain_rate_pct, avoided_usd,
//! score{total, compression, cost_efficiency, quality, consistency, trend}}`,
//! `tasks[]`, `heatmap[]`.
//!
//! Scores are 0–100 and defined from the counts only: compression is the gain rate;
//! cost efficiency the share of commands that saved anything; quality the share
//! without an error; consistency the share of the last 7 active days with savings;
//! trend 50 for flat, up to 100 (or down to 0) as the last 7 days' gain rate rises
//! (falls) against the 7 before; total their mean.

use serde::Serialize;

use crate::stats::{Counts, Stats};

/// The model a report values saved tokens at when nobody says otherwise.
pub const DEFAULT_MODEL: &str = "claude-sonnet";
/// Its price per million input tokens, in USD.
pub const DEFAULT_USD_PER_MTOK: f64 = 3.0;

/// What saved tokens are worth.
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    pub model: String,
    pub usd_per_mtok: f64,
}

impl Default for Price {
    fn default() -> Price {
        Price {
            model: DEFAULT_MODEL.to_string(),
            usd_per_mtok: DEFAULT_USD_PER_MTOK,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub summary: Summary,
    pub tasks: Vec<Task>,
    pub heatmap: Vec<FileRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub model: Model,
    pub tokens_saved: u64,
    pub gain_rate_pct: f64,
    pub avoided_usd: f64,
    pub score: Score,
    pub total_commands: u64,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    pub model_key: String,
    pub usd_per_mtok: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Score {
    pub total: u32,
    pub compression: u32,
    pub cost_efficiency: u32,
    pub quality: u32,
    pub consistency: u32,
    pub trend: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Task {
    pub category: String,
    pub commands: u64,
    pub tokens_saved: u64,
    pub tool_calls: u64,
    pub tool_spend_usd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileRow {
    pub path: String,
    pub access_count: u64,
    pub tokens_saved: u64,
    pub compression_pct: f64,
}

fn saved(c: &Counts) -> u64 {
    c.input_tokens.saturating_sub(c.output_tokens)
}

fn rate(c: &Counts) -> f64 {
    if c.input_tokens == 0 {
        0.0
    } else {
        100.0 * saved(c) as f64 / c.input_tokens as f64
    }
}

fn pct(part: u64, whole: u64) -> u32 {
    (100 * part).checked_div(whole).unwrap_or(0) as u32
}

fn sum<'a>(days: impl Iterator<Item = &'a Counts>) -> Counts {
    days.fold(Counts::default(), |mut acc, c| {
        acc.commands += c.commands;
        acc.errors += c.errors;
        acc.input_tokens += c.input_tokens;
        acc.output_tokens += c.output_tokens;
        acc
    })
}

pub fn report(stats: &Stats, price: &Price) -> Report {
    let total = Counts {
        commands: stats.total_commands,
        errors: stats.total_errors,
        input_tokens: stats.total_input_tokens,
        output_tokens: stats.total_output_tokens,
    };
    let usd = |tokens: u64| tokens as f64 * price.usd_per_mtok / 1e6;
    let saving_commands: u64 = stats
        .commands
        .values()
        .filter(|c| saved(c) > 0)
        .map(|c| c.commands)
        .sum();
    // Days are `YYYY-MM-DD` keys: sorted, newest last.
    let days: Vec<&Counts> = stats.daily.values().collect();
    let recent = &days[days.len().saturating_sub(7)..];
    let prior = &days[days.len().saturating_sub(14)..days.len().saturating_sub(7)];
    let consistency = pct(
        recent.iter().filter(|d| saved(d) > 0).count() as u64,
        recent.len() as u64,
    );
    let trend = if prior.is_empty() {
        50
    } else {
        (50.0 + (rate(&sum(recent.iter().copied())) - rate(&sum(prior.iter().copied()))) / 2.0)
            .clamp(0.0, 100.0) as u32
    };
    let mut score = Score {
        total: 0,
        compression: rate(&total).round() as u32,
        cost_efficiency: pct(saving_commands, total.commands),
        quality: pct(
            total.commands - total.errors.min(total.commands),
            total.commands,
        ),
        consistency,
        trend,
    };
    score.total = (score.compression
        + score.cost_efficiency
        + score.quality
        + score.consistency
        + score.trend)
        / 5;
    let mut heatmap: Vec<FileRow> = stats
        .files
        .iter()
        .map(|(path, c)| FileRow {
            path: path.clone(),
            access_count: c.commands,
            tokens_saved: saved(c),
            compression_pct: (rate(c) * 10.0).round() / 10.0,
        })
        .collect();
    heatmap.sort_by(|a, b| {
        b.access_count
            .cmp(&a.access_count)
            .then(b.tokens_saved.cmp(&a.tokens_saved))
    });
    heatmap.truncate(10);
    let mut tasks: Vec<Task> = stats
        .commands
        .iter()
        .map(|(name, c)| Task {
            category: name.clone(),
            commands: c.commands,
            tokens_saved: saved(c),
            tool_calls: c.commands,
            tool_spend_usd: usd(c.output_tokens),
        })
        .collect();
    tasks.sort_by(|a, b| {
        b.tokens_saved
            .cmp(&a.tokens_saved)
            .then(b.commands.cmp(&a.commands))
    });
    Report {
        summary: Summary {
            model: Model {
                model_key: price.model.clone(),
                usd_per_mtok: price.usd_per_mtok,
            },
            tokens_saved: saved(&total),
            gain_rate_pct: (rate(&total) * 10.0).round() / 10.0,
            avoided_usd: usd(saved(&total)),
            score,
            total_commands: total.commands,
            total_input_tokens: total.input_tokens,
            total_output_tokens: total.output_tokens,
        },
        tasks,
        heatmap,
    }
}

/// One UTC day of the time series the dashboard charts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Day {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub commands: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub tokens_saved: u64,
}

/// Tokens saved per day, oldest first (the days `stats.json` has: days without a
/// call are absent).
pub fn daily(stats: &Stats) -> Vec<Day> {
    stats
        .daily
        .iter()
        .map(|(day, c)| Day {
            day: day.clone(),
            commands: c.commands,
            input_tokens: c.input_tokens,
            output_tokens: c.output_tokens,
            tokens_saved: saved(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(commands: u64, input: u64, output: u64) -> Counts {
        Counts {
            commands,
            errors: 0,
            input_tokens: input,
            output_tokens: output,
        }
    }

    #[test]
    fn the_report_and_the_series_count_savings_the_same_way() {
        let mut stats = Stats {
            total_input_tokens: 1000,
            total_output_tokens: 200,
            total_commands: 3,
            ..Stats::default()
        };
        stats.commands.insert("outline".into(), counts(2, 900, 100));
        stats
            .commands
            .insert("search_symbol".into(), counts(1, 100, 100));
        stats.daily.insert("2026-11-29".into(), counts(1, 100, 100));
        stats.daily.insert("2026-11-30".into(), counts(2, 900, 100));
        stats.files.insert("/p/a.rs".into(), counts(2, 900, 100));
        let r = report(&stats, &Price::default());
        assert_eq!(r.summary.tokens_saved, 800);
        assert_eq!(r.summary.gain_rate_pct, 80.0);
        assert_eq!(r.tasks[0].category, "outline");
        assert_eq!(r.heatmap[0].compression_pct, 88.9);
        let days = daily(&stats);
        assert_eq!(
            days.iter().map(|d| d.tokens_saved).sum::<u64>(),
            r.summary.tokens_saved
        );
        assert_eq!(days[0].day, "2026-11-29");
    }
}
