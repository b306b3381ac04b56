//! `lean-ctx gain [--json]`: what lean-ctx saved, from `stats.json` (no daemon
//! needed). `--json` carries the keys the JetBrains plugin's Gain tool window reads
//! (spec §4.2): `summary{model{model_key}, tokens_saved, gain_rate_pct, avoided_usd,
//! score{total, compression, cost_efficiency, quality, consistency, trend}}`,
//! `tasks[]`, `heatmap[]`.
//!
//! Scores are 0–100 and defined from the counts only: compression is the gain rate;
//! cost efficiency the share of commands that saved anything; quality the share
//! without an error; consistency the share of the last 7 active days with savings;
//! trend 50 for flat, up to 100 (or down to 0) as the last 7 days' gain rate rises
//! (falls) against the 7 before; total their mean.

use std::process::ExitCode;

use clap::Args;
use lean_ctx_shared::{
    LeanError, Paths,
    stats::{Counts, Stats},
};
use serde::Serialize;

use crate::output::Output;

#[derive(Debug, Args)]
pub struct GainArgs {
    /// The model whose price values the saved tokens.
    #[arg(long, default_value = "claude-sonnet", env = "LEAN_CTX_MODEL")]
    model: String,
    /// Its price per million input tokens, in USD.
    #[arg(long, default_value_t = 3.0, env = "LEAN_CTX_USD_PER_MTOK")]
    usd_per_mtok: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    summary: Summary,
    tasks: Vec<Task>,
    heatmap: Vec<FileRow>,
}

#[derive(Debug, Serialize)]
struct Summary {
    model: Model,
    tokens_saved: u64,
    gain_rate_pct: f64,
    avoided_usd: f64,
    score: Score,
    total_commands: u64,
    total_input_tokens: u64,
    total_output_tokens: u64,
}

#[derive(Debug, Serialize)]
struct Model {
    model_key: String,
    usd_per_mtok: f64,
}

#[derive(Debug, Serialize)]
struct Score {
    total: u32,
    compression: u32,
    cost_efficiency: u32,
    quality: u32,
    consistency: u32,
    trend: u32,
}

#[derive(Debug, Serialize)]
struct Task {
    category: String,
    commands: u64,
    tokens_saved: u64,
    tool_calls: u64,
    tool_spend_usd: f64,
}

#[derive(Debug, Serialize)]
struct FileRow {
    path: String,
    access_count: u64,
    tokens_saved: u64,
    compression_pct: f64,
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

fn report(stats: &Stats, args: &GainArgs) -> Report {
    let total = Counts {
        commands: stats.total_commands,
        errors: stats.total_errors,
        input_tokens: stats.total_input_tokens,
        output_tokens: stats.total_output_tokens,
    };
    let usd = |tokens: u64| tokens as f64 * args.usd_per_mtok / 1e6;
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
                model_key: args.model.clone(),
                usd_per_mtok: args.usd_per_mtok,
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

pub fn run(args: GainArgs, paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let report = report(&Stats::read(&paths.data_dir), &args);
    out.emit(&report, || {
        let s = &report.summary;
        if s.total_commands == 0 {
            return "no data captured yet: gain counts the calls agents make through lean-ctx".to_string();
        }
        let mut t = format!(
            "tokens saved  {} of {} read-equivalent ({:.1}%), about ${:.2} at {} (${}/Mtok)\n\
             commands      {}\n\
             score         {} (compression {}, cost efficiency {}, quality {}, consistency {}, trend {})\n",
            s.tokens_saved,
            s.total_input_tokens,
            s.gain_rate_pct,
            s.avoided_usd,
            s.model.model_key,
            s.model.usd_per_mtok,
            s.total_commands,
            s.score.total,
            s.score.compression,
            s.score.cost_efficiency,
            s.score.quality,
            s.score.consistency,
            s.score.trend
        );
        t.push_str("by command\n");
        for task in &report.tasks {
            t.push_str(&format!("  {:<22} {:>6} calls  {:>10} saved\n", task.category, task.commands, task.tokens_saved));
        }
        if !report.heatmap.is_empty() {
            t.push_str("top files\n");
            for f in &report.heatmap {
                t.push_str(&format!("  {:>4}x {:>10} saved  {}\n", f.access_count, f.tokens_saved, f.path));
            }
        }
        t.trim_end().to_string()
    });
    Ok(ExitCode::SUCCESS)
}
