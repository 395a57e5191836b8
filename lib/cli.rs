//! What every binary's command line shares beyond its own flags: `--generate` (shell
//! completions and a man page from the clap definitions) and `--color`. A binary calls
//! [`parse`] instead of `Parser::parse`.

pub mod generate;

pub use generate::{Kind, parse};
