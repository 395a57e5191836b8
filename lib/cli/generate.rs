//! `--generate complete-bash|complete-zsh|complete-fish|man` and `--color auto|always|never`,
//! added to a binary's clap command so both appear in its help, its completions and its man
//! page without each binary declaring them.

use std::ffi::{OsStr, OsString};
use std::io::Write;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgAction, Command, CommandFactory, FromArgMatches};
use clap_complete::Shell;

use crate::io::exit::EXIT_CODES_HELP;
use crate::io::format::{ColorChoice, set_color_choice};

/// What `--generate` writes on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    Man,
    /// Hidden: the problems [`audit`] finds in the help, one a line (none: a clean help).
    HelpCheck,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::CompleteBash,
        Kind::CompleteZsh,
        Kind::CompleteFish,
        Kind::Man,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::CompleteBash => "complete-bash",
            Kind::CompleteZsh => "complete-zsh",
            Kind::CompleteFish => "complete-fish",
            Kind::Man => "man",
            Kind::HelpCheck => "help-check",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .chain([Kind::HelpCheck])
            .find(|k| k.name() == name)
    }
}

const GENERATE: &str = "generate";

/// The kinds as clap shows them (`help-check` hidden: a check for this project's tests).
fn kinds() -> Vec<PossibleValue> {
    Kind::ALL
        .map(|k| PossibleValue::new(k.name()))
        .into_iter()
        .chain([PossibleValue::new(Kind::HelpCheck.name()).hide(true)])
        .collect()
}
const COLOR: &str = "color";

/// `T`'s clap command with `--generate` and `--color` added.
pub fn command<T: CommandFactory>() -> Command {
    with_shared_flags(T::command())
}

fn with_shared_flags(cmd: Command) -> Command {
    let name = cmd.get_name().to_string();
    with_exit_codes(cmd)
        .arg(
            Arg::new(GENERATE)
                .long(GENERATE)
                .value_name("KIND")
                .value_parser(kinds())
                .action(ArgAction::Set)
                .help("Print a shell completion script or the man page on stdout, and exit")
                .long_help(format!(
                    "Print a shell completion script or the man page on stdout, and exit \
                 (`make install` installs them all). Try: `{name} --generate man | man -l -`"
                )),
        )
        .arg(
            Arg::new(COLOR)
                .long(COLOR)
                .value_name("WHEN")
                .value_parser(["auto", "always", "never"])
                .action(ArgAction::Set)
                .global(true)
                .help("Colour in text output: auto (a terminal, and NO_COLOR unset), always, never")
                .hide_possible_values(true),
        )
}

/// Parses the process's arguments into `T`. `--generate KIND` (anywhere before `--`) prints
/// and exits 0 before the binary's own rules run, so a binary whose subcommand is required
/// still answers it; `--color` sets the choice [`crate::io::format::stdout_color`] reads.
pub fn parse<T: CommandFactory + FromArgMatches>() -> T {
    parse_from(std::env::args_os())
}

/// [`parse`] on given arguments (the first is the program name).
pub fn parse_from<T, I>(args: I) -> T
where
    T: CommandFactory + FromArgMatches,
    I: IntoIterator<Item = OsString>,
{
    let args: Vec<OsString> = args.into_iter().collect();
    let mut cmd = command::<T>();
    if let Some(kind) = requested(&mut cmd, &args) {
        let mut out = std::io::stdout().lock();
        let written = write(kind, &mut cmd, &mut out).and_then(|()| out.flush());
        match written {
            // A closed pipe (`| head`) is not a failure, as everywhere else.
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("{}: error: writing {}: {e}", cmd.get_name(), kind.name());
                std::process::exit(2);
            }
            _ => std::process::exit(0),
        }
    }
    let mut matches = cmd.clone().get_matches_from(args);
    let choice = match matches.get_one::<String>(COLOR).map(String::as_str) {
        Some("always") => ColorChoice::Always,
        Some("never") => ColorChoice::Never,
        _ => ColorChoice::Auto,
    };
    set_color_choice(choice);
    T::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// The kind asked for with `--generate`, validated by clap (a bad kind exits 2 with clap's
/// message listing the kinds).
fn requested(cmd: &mut Command, args: &[OsString]) -> Option<Kind> {
    let rest = args.iter().skip(1).take_while(|a| *a != "--");
    let mut value = None;
    let mut next_is_value = false;
    for a in rest {
        let Some(a) = a.to_str() else {
            next_is_value = false;
            continue;
        };
        if next_is_value {
            value = Some(a.to_string());
            next_is_value = false;
        } else if a == "--generate" {
            next_is_value = true;
            value = Some(String::new());
        } else if let Some(v) = a.strip_prefix("--generate=") {
            value = Some(v.to_string());
        }
    }
    let value = value?;
    // Built, so the argument carries its final settings (clap reads them when erroring).
    cmd.build();
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_id() == GENERATE)?
        .clone();
    let name = PossibleValuesParser::new(kinds())
        .parse_ref(cmd, Some(&arg), OsStr::new(&value))
        .unwrap_or_else(|e| e.exit());
    Kind::from_name(&name)
}

/// Writes one kind for `cmd` (already carrying the shared flags).
pub fn write(kind: Kind, cmd: &mut Command, out: &mut dyn Write) -> std::io::Result<()> {
    let name = cmd.get_name().to_string();
    let shell = match kind {
        Kind::CompleteBash => Shell::Bash,
        Kind::CompleteZsh => Shell::Zsh,
        Kind::CompleteFish => Shell::Fish,
        Kind::Man => {
            cmd.build();
            let page = man_page(cmd)?;
            return out.write_all(roff_ascii(&page).as_bytes());
        }
        Kind::HelpCheck => {
            for problem in audit(cmd) {
                writeln!(out, "{problem}")?;
            }
            return Ok(());
        }
    };
    clap_complete::generate(shell, cmd, name, out);
    Ok(())
}

/// One page for the whole command: clap_mangen's sections for the binary, then each
/// subcommand in full under COMMANDS (clap_mangen alone points at a page per subcommand,
/// `hermes-skills-list(1)`, which nobody installs).
fn man_page(cmd: &Command) -> std::io::Result<String> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    let mut page = String::from_utf8_lossy(&page).into_owned();
    if visible_subcommands(cmd).next().is_some() {
        page.push_str(".SH COMMANDS\n");
        for sub in visible_subcommands(cmd) {
            subcommand_entry(sub, &mut page)?;
        }
    }
    if let Some(notes) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        page.push_str(".SH NOTES\n");
        page.push_str(&preformatted(&notes.to_string()));
    }
    // clap_mangen panics on a command without a version.
    if cmd.get_version().is_some() || cmd.get_long_version().is_some() {
        let mut version = Vec::new();
        man.render_version_section(&mut version)?;
        page.push_str(&String::from_utf8_lossy(&version));
    }
    Ok(page)
}

fn visible_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// A subcommand under COMMANDS: `.SS` with its full name, then its synopsis, description,
/// options and notes (its exit codes only when they are its own), and its own subcommands.
fn subcommand_entry(sub: &Command, page: &mut String) -> std::io::Result<()> {
    let name = sub.get_bin_name().unwrap_or(sub.get_name());
    page.push_str(&format!(".SS \"{}\"\n", name.replace('-', "\\-")));
    // The flags every subcommand shares are described once, at the top.
    let globals: Vec<_> = sub
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    let sub = globals
        .into_iter()
        .fold(sub.clone(), |c, id| c.mut_arg(id, |a| a.hide(true)));
    let sub = &sub;
    let man = clap_mangen::Man::new(sub.clone());
    let mut parts = Vec::new();
    man.render_synopsis_section(&mut parts)?;
    man.render_description_section(&mut parts)?;
    if sub.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut parts)?;
    }
    let own_notes = sub
        .get_after_help()
        .map(|h| h.to_string())
        .filter(|h| h.trim() != EXIT_CODES_HELP);
    // Section headings inside an entry become plain paragraphs.
    for line in String::from_utf8_lossy(&parts).lines() {
        match line.strip_prefix(".SH ") {
            Some("SYNOPSIS" | "DESCRIPTION" | "EXTRA") => page.push_str(".PP\n"),
            Some(heading) => page.push_str(&format!(".PP\n{}:\n", title_case(heading))),
            None => {
                page.push_str(line);
                page.push('\n');
            }
        }
    }
    if let Some(notes) = own_notes {
        page.push_str(".PP\n");
        page.push_str(&preformatted(&notes));
    }
    for nested in visible_subcommands(sub) {
        subcommand_entry(nested, page)?;
    }
    Ok(())
}

/// Help text as laid out for the terminal (examples, JSON lines, aligned columns), kept as
/// it is: filled, long example lines would be re-broken and warned about.
fn preformatted(text: &str) -> String {
    let mut out = String::from(".nf\n");
    for line in text.lines() {
        let line = line.replace('\\', "\\e").replace('-', "\\-");
        if line.starts_with('.') || line.starts_with('\'') {
            out.push_str("\\&");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

fn title_case(heading: &str) -> String {
    let lower = heading.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The page with every non-ASCII character (→, …, an emoji in an example) as a roff `\[uXXXX]`
/// escape: troff reads its input as Latin-1 unless a preprocessor converts it first, and not
/// every `man` runs one.
fn roff_ascii(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", c as u32));
        }
    }
    out
}

/// Gives every subcommand that says nothing about exit codes the shared paragraph, so
/// `hermes-x sub --help` answers "what does 1 mean here" too.
fn with_exit_codes(cmd: Command) -> Command {
    cmd.mut_subcommands(|sub| {
        let sub = with_exit_codes(sub);
        if mentions_exit_codes(&sub) {
            sub
        } else {
            let text = match sub.get_after_help() {
                Some(before) => format!("{before}\n\n{EXIT_CODES_HELP}"),
                None => EXIT_CODES_HELP.to_string(),
            };
            sub.after_help(text)
        }
    })
}

fn mentions_exit_codes(cmd: &Command) -> bool {
    [cmd.get_after_help(), cmd.get_after_long_help()]
        .into_iter()
        .flatten()
        .any(|text| text.to_string().contains("Exit codes"))
}

/// What a new user would miss in `cmd`'s help: an argument without help text, a command
/// without its exit codes. Hidden arguments and clap's own `help`/`version` are left out.
pub fn audit(cmd: &mut Command) -> Vec<String> {
    cmd.build();
    let mut problems = Vec::new();
    walk(cmd, |path, c| {
        let at = path.join(" ");
        // clap's own `help` subcommand and the copies of the tree under it.
        if path.iter().skip(1).any(|p| *p == "help") {
            return;
        }
        if !mentions_exit_codes(c) {
            problems.push(format!("{at}: no exit codes in its help"));
        }
        for arg in c.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_hide_set() || matches!(id, "help" | "version") {
                continue;
            }
            let said = [arg.get_help(), arg.get_long_help()]
                .into_iter()
                .flatten()
                .any(|h| !h.to_string().trim().is_empty());
            if !said {
                problems.push(format!("{at}: argument `{id}` has no help"));
            }
        }
    });
    problems
}

/// Every argument of `cmd` and its subcommands, with the path of subcommand names leading to
/// it, for checks that walk a binary's whole command line (help text, exit codes).
pub fn walk(cmd: &Command, mut visit: impl FnMut(&[&str], &Command)) {
    fn go<'a>(cmd: &'a Command, path: &mut Vec<&'a str>, visit: &mut dyn FnMut(&[&str], &Command)) {
        path.push(cmd.get_name());
        visit(path, cmd);
        for sub in cmd.get_subcommands() {
            go(sub, path, visit);
        }
        path.pop();
    }
    go(cmd, &mut Vec::new(), &mut visit);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser, Debug)]
    #[command(name = "hermes-demo", subcommand_required = true)]
    struct Demo {
        #[command(subcommand)]
        cmd: Sub,
    }

    #[derive(clap::Subcommand, Debug)]
    enum Sub {
        /// Do it
        Run {
            /// How many
            #[arg(long)]
            n: Option<u32>,
        },
    }

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn finds_the_kind_anywhere_before_the_double_dash() {
        let mut cmd = command::<Demo>();
        assert_eq!(
            requested(&mut cmd, &os(&["x", "--generate", "man"])),
            Some(Kind::Man)
        );
        assert_eq!(
            requested(&mut cmd, &os(&["x", "run", "--generate=complete-zsh"])),
            Some(Kind::CompleteZsh)
        );
        assert_eq!(
            requested(&mut cmd, &os(&["x", "--", "--generate", "man"])),
            None
        );
        assert_eq!(requested(&mut cmd, &os(&["x", "run"])), None);
    }

    #[test]
    fn every_kind_names_the_command_and_its_subcommands() {
        for kind in Kind::ALL {
            let mut cmd = command::<Demo>();
            let mut out = Vec::new();
            write(kind, &mut cmd, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("hermes-demo"), "{kind:?}: {text}");
            assert!(text.contains("run"), "{kind:?}: {text}");
        }
    }

    #[test]
    fn color_and_generate_reach_help_and_completions() {
        let mut cmd = command::<Demo>();
        let mut out = Vec::new();
        write(Kind::CompleteBash, &mut cmd, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("--generate"));
        assert!(text.contains("--color"));
    }

    #[test]
    fn subcommands_get_exit_codes_and_the_audit_names_bare_arguments() {
        #[derive(clap::Parser)]
        #[command(name = "bare", after_help = "Exit codes: 0 yes")]
        struct Bare {
            #[arg(long)]
            quiet: bool,
            #[command(subcommand)]
            sub: Option<Sub>,
        }
        let mut cmd = command::<Bare>();
        assert_eq!(audit(&mut cmd), ["bare: argument `quiet` has no help"]);
        let run = cmd.find_subcommand("run").unwrap();
        assert!(
            run.get_after_help()
                .unwrap()
                .to_string()
                .contains("Exit codes")
        );
    }

    #[test]
    fn man_pages_are_ascii_with_unicode_escapes() {
        assert_eq!(roff_ascii("a → b 💾"), "a \\[u2192] b \\[u1F4BE]");
    }

    #[test]
    fn color_choice_parses_and_the_struct_still_fills() {
        let demo: Demo = parse_from(os(&["x", "run", "--color", "never", "--n", "3"]));
        assert!(matches!(demo.cmd, Sub::Run { n: Some(3) }));
    }
}
