//! hermes-skills: the skill library of a Hermes home — list, view, write, and the system
//! prompt's skill index.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use hermes_loop::home::Home;
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit};
use hermes_loop::io::format::Format;
use hermes_loop::io::output::Output;
use hermes_loop::skills::command;
use hermes_loop::skills::guards::Origin;
use hermes_loop::skills::library::Library;
use hermes_loop::skills::list::ListFilter;
use hermes_loop::skills::manage::ManageArgs;
use hermes_loop::skills::prompt::PromptOptions;

const BIN: &str = "hermes-skills";

const APPLY_HELP: &str = r#"Input: one skill_manage argument object a line (the tool's own names):
  {"action":"create","name":"git-bisect","category":"dev","content":"---\nname: git-bisect\n…"}
  {"action":"patch","name":"git-bisect","old_string":"git log","new_string":"git log --oneline"}
  {"action":"edit","name":"git-bisect","content":"…the whole new SKILL.md…"}
  {"action":"write_file","name":"git-bisect","file_path":"references/notes.md","file_content":"…"}
  {"action":"remove_file","name":"git-bisect","file_path":"references/notes.md"}
  {"action":"delete","name":"old-skill","absorbed_into":"git-bisect"}
  {"tool":"skill_view","name":"git-bisect"}   a view, which an autonomous writer needs first
Output: the tool's result object for each line, one a line.

Example (apply what a review proposed):
  hermes-review --propose chat.jsonl | jq -c 'select(.tool=="skill_manage").arguments' \
    | hermes-skills apply --origin background_review

Exit codes: 0 every call succeeded; 1 a call was refused (its result says why); 2 bad input
or an I/O error (with --keep-going: at the end, when a line was left out)."#;

#[derive(Parser)]
#[command(name = BIN, version, about = "The skill library: list, view, create, patch, edit, delete, apply, prompt index", after_help = EXIT_CODES_HELP)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    format: FormatArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List skills with their usage; --all also shows hidden ones and why
    List {
        /// Only skills of this category (its folder under skills/)
        #[arg(long)]
        category: Option<String>,
        /// all, hub, builtin, local or external
        #[arg(long, default_value = "all", value_parser = ["all", "hub", "builtin", "local", "external"])]
        source: String,
        /// List the archived skills instead
        #[arg(long)]
        archived: bool,
        /// Every SKILL.md found, with the reason each hidden one is hidden
        #[arg(long)]
        all: bool,
    },
    /// Print a skill's SKILL.md, or one of its files
    View {
        /// The skill's name
        name: String,
        /// A support file of the skill (e.g. references/api.md) instead of SKILL.md
        file: Option<String>,
        /// Count this as the agent's use of the skill (view and use counters), as its
        /// `skill_view` tool does
        #[arg(long, conflicts_with = "no_count")]
        count: bool,
        /// Do not bump the usage counters (the default)
        #[arg(long)]
        no_count: bool,
    },
    /// Create a skill from SKILL.md text
    Create {
        /// The new skill's name (lowercase letters, digits, hyphens)
        name: String,
        /// Put it under skills/CATEGORY/
        #[arg(long)]
        category: Option<String>,
        #[command(flatten)]
        content: Content,
    },
    /// Replace text in SKILL.md or a support file (fuzzy matching, as the agent's tool)
    Patch {
        /// The skill's name
        name: String,
        /// The text to find (matched as the agent's patch tool matches it)
        #[arg(long, allow_hyphen_values = true)]
        old: String,
        /// The text to put in its place
        #[arg(long, allow_hyphen_values = true)]
        new: String,
        /// A support file instead of SKILL.md
        #[arg(long)]
        file: Option<String>,
        /// Replace every occurrence
        #[arg(long)]
        all: bool,
        /// Refuse anything but an exact match (no fuzzy matching)
        #[arg(long)]
        exact: bool,
    },
    /// Rewrite a skill's SKILL.md
    Edit {
        /// The skill's name
        name: String,
        #[command(flatten)]
        content: Content,
    },
    /// Delete a skill
    Delete {
        /// The skill's name
        name: String,
        /// The umbrella skill its content went into
        #[arg(long)]
        absorbed_into: Option<String>,
    },
    /// Write a support file (references/, templates/, scripts/, assets/)
    WriteFile {
        /// The skill's name
        name: String,
        /// The file's path inside the skill (references/…, templates/…, scripts/…, assets/…)
        path: String,
        #[command(flatten)]
        content: Content,
    },
    /// Remove a support file
    RemoveFile {
        /// The skill's name
        name: String,
        /// The file's path inside the skill
        path: String,
    },
    /// JSONL of skill_manage argument objects on stdin; one result object per line
    #[command(after_help = APPLY_HELP)]
    Apply {
        /// Who is writing: foreground (a person), background_review or curator (the write
        /// guards of an autonomous writer apply)
        #[arg(long, default_value = "foreground", value_parser = ["foreground", "background_review", "curator"])]
        origin: String,
        /// Report a bad input line on stderr and go on
        #[arg(long)]
        keep_going: bool,
    },
    /// The skills hub: search, install, inspect, uninstall, check, update, audit
    #[command(subcommand, after_help = hermes_loop::hub::cli::HUB_HELP)]
    Hub(hermes_loop::hub::cli::HubCommand),
    /// The skills block of the system prompt
    PromptIndex {
        /// The agent's tools (comma-separated), for skills' conditions
        #[arg(long, value_delimiter = ',')]
        tools: Option<Vec<String>>,
        /// The agent's toolsets (comma-separated)
        #[arg(long, value_delimiter = ',')]
        toolsets: Option<Vec<String>>,
        /// Top-level categories to show as names only (comma-separated)
        #[arg(long, value_delimiter = ',')]
        compact: Vec<String>,
    },
}

/// SKILL.md or file text: `--content-file F` or `-` for stdin.
#[derive(Args)]
struct Content {
    /// Read the text from this file (`-`: stdin)
    #[arg(long, value_name = "F")]
    content_file: Option<PathBuf>,
    /// `-` reads the text from stdin
    #[arg(value_name = "-")]
    stdin: Option<String>,
}

impl Content {
    fn read(&self) -> anyhow::Result<String> {
        let bytes = match (&self.content_file, self.stdin.as_deref()) {
            (Some(path), None) if path.as_os_str() != "-" => {
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
            }
            (Some(_), None) | (None, Some("-")) => {
                hermes_loop::io::jsonl::announce_stdin(BIN, "the text", None);
                let mut buf = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut buf)
                    .context("cannot read stdin")?;
                buf
            }
            (None, Some(other)) => bail!(
                "unexpected argument {other:?}: give the text with --content-file F or - (stdin)"
            ),
            (Some(_), Some(_)) => bail!("give the text once: --content-file F or - (stdin)"),
            (None, None) => bail!("no text given: use --content-file F or - (stdin)"),
        };
        String::from_utf8(bytes).context("the text is not UTF-8")
    }
}

fn main() -> ExitCode {
    exit::run(BIN, || {
        let cli = hermes_loop::cli::parse::<Cli>();
        hermes_loop::clock::now()?;
        let flag = cli.common.home.as_deref();
        let reads_only = matches!(
            cli.command,
            Command::List { .. } | Command::View { .. } | Command::PromptIndex { .. }
        );
        let home = match reads_only {
            true => Home::resolve_existing(flag)?,
            false => Home::resolve(flag)?,
        };
        let existed = home.root().is_dir();
        let lib = Library::open(home)?;
        let mut out = Output::stdout();
        // The document itself, piped or not: `view x > x.md` and `prompt-index > f` want
        // the text a person reads, not the tool's JSON (ask for that with --format).
        let format = match (&cli.command, cli.format.format) {
            (Command::View { .. } | Command::PromptIndex { .. }, None) => Format::Text,
            _ => cli.format.resolve(),
        };
        let mut ui = command::Ui {
            out: &mut out,
            format,
            bin: BIN,
        };
        let exit = run(&lib, cli.command, &mut ui)?;
        out.finish()?;
        exit::note_created_home(BIN, &lib.home, existed, cli.common.quiet);
        Ok(exit)
    })
}

fn run(lib: &Library, cmd: Command, ui: &mut command::Ui) -> anyhow::Result<Exit> {
    let scanner = hermes_loop::guard::agent_write_scanner();
    match cmd {
        Command::List {
            category,
            source,
            archived,
            all,
        } => {
            let filter = ListFilter {
                category,
                source: Some(source),
                all,
            };
            command::list(lib, &filter, archived, ui)
        }
        Command::View {
            name,
            file,
            count,
            no_count: _,
        } => command::view(lib, &name, file.as_deref(), count, ui),
        Command::Apply { origin, keep_going } => {
            let origin = Origin::parse(&origin).unwrap_or_default();
            hermes_loop::io::jsonl::announce_stdin(BIN, "skill_manage calls (JSONL)", None);
            let stdin = std::io::stdin().lock();
            command::apply(lib, origin, scanner, stdin, keep_going, ui)
        }
        Command::PromptIndex {
            tools,
            toolsets,
            compact,
        } => {
            let options = PromptOptions {
                tools: tools.map(|t| t.into_iter().collect()),
                toolsets: toolsets.map(|t| t.into_iter().collect()),
                compact_categories: compact.into_iter().collect(),
            };
            command::prompt_index(lib, &options, ui)
        }
        Command::Hub(hub) => {
            hermes_loop::hub::cli::run(lib.home.clone(), hub, ui.format, ui.out, BIN)
        }
        write => command::manage(lib, &write.into_args()?, scanner, ui),
    }
}

fn args(action: &str, name: String) -> ManageArgs {
    ManageArgs {
        action: action.into(),
        name,
        ..ManageArgs::default()
    }
}

impl Command {
    /// The `skill_manage` arguments of a write command.
    fn into_args(self) -> anyhow::Result<ManageArgs> {
        Ok(match self {
            Command::Create {
                name,
                category,
                content,
            } => ManageArgs {
                content: Some(content.read()?),
                category: category.map(Into::into),
                ..args("create", name)
            },
            Command::Patch {
                name,
                old,
                new,
                file,
                all,
                exact,
            } => ManageArgs {
                old_string: Some(old),
                new_string: Some(new),
                file_path: file,
                replace_all: all,
                exact,
                ..args("patch", name)
            },
            Command::Edit { name, content } => ManageArgs {
                content: Some(content.read()?),
                ..args("edit", name)
            },
            Command::Delete {
                name,
                absorbed_into,
            } => ManageArgs {
                absorbed_into: absorbed_into.map(Into::into),
                ..args("delete", name)
            },
            Command::WriteFile {
                name,
                path,
                content,
            } => ManageArgs {
                file_path: Some(path),
                file_content: Some(content.read()?),
                ..args("write_file", name)
            },
            Command::RemoveFile { name, path } => ManageArgs {
                file_path: Some(path),
                ..args("remove_file", name)
            },
            _ => bail!("not a write command"),
        })
    }
}
