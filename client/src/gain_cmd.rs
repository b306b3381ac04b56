//! `lean-ctx gain [--json]`: what lean-ctx saved, from `stats.json` (no daemon
//! needed). The report itself (keys, scores) is `lean_ctx_shared::gain::report`, the
//! same function the daemon's dashboard serves, so both show the same numbers.

use std::process::ExitCode;

use clap::Args;
use lean_ctx_shared::{
    LeanError, Paths,
    gain::{self, Price},
    stats::Stats,
};

use crate::output::Output;

#[derive(Debug, Args)]
pub struct GainArgs {
    /// The model whose price values the saved tokens.
    #[arg(long, default_value = gain::DEFAULT_MODEL, env = "LEAN_CTX_MODEL")]
    model: String,
    /// Its price per million input tokens, in USD.
    #[arg(long, default_value_t = gain::DEFAULT_USD_PER_MTOK, env = "LEAN_CTX_USD_PER_MTOK")]
    usd_per_mtok: f64,
}

pub fn run(args: GainArgs, paths: &Paths, out: &Output) -> Result<ExitCode, LeanError> {
    let price = Price {
        model: args.model,
        usd_per_mtok: args.usd_per_mtok,
    };
    let report = gain::report(&Stats::read(&paths.data_dir), &price);
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
