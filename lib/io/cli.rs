//! Flags every binary shares. Flatten [`CommonArgs`] into a binary's clap struct.

use std::path::PathBuf;

use super::format::Format;

/// `--home` and `--quiet`, accepted before or after a subcommand.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommonArgs {
    /// The Hermes home directory [default: $HERMES_HOME, else ~/.hermes]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Print no progress and no warnings; errors still go to stderr
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// `--format text|json|jsonl`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FormatArgs {
    /// Output format [default: text on a terminal, jsonl otherwise]
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,
}

impl FormatArgs {
    pub fn resolve(&self) -> Format {
        Format::resolve(self.format)
    }
}
