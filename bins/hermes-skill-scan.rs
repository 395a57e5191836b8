//! hermes-skill-scan: lint and security-scan skills, for CI and before install.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use hermes_loop::guard::baseline::Baseline;
use hermes_loop::guard::batch::{self, RunOptions, Summary};
use hermes_loop::guard::policy::Install;
use hermes_loop::guard::{ScanOptions, Trust, Verdict, explain, report, sarif};
use hermes_loop::home::Home;
use hermes_loop::io::cli::CommonArgs;
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit, Hinted};
use hermes_loop::io::format::stdout_color;
use hermes_loop::io::output::Output;
use hermes_loop::io::progress::{self, Units};
use hermes_loop::skills::discover::SKILL_FILE;
use hermes_loop::skills::lint::Profile;

const BIN: &str = "hermes-skill-scan";

const EXAMPLES: &str = "\
Examples:
  hermes-skill-scan                                  every skill of $HERMES_HOME
  hermes-skill-scan ./downloaded-skill --trust community   verdict and install decision
  hermes-skill-scan --lint --lint-profile agentskills skills/ --format sarif > scan.sarif
  hermes-skill-scan --lint --write-baseline .scan-baseline.json skills/
  hermes-skill-scan --lint --baseline .scan-baseline.json skills/      the CI gate
  hermes-skill-scan --explain list                   every rule id; --explain ID for one";

/// Lint and security-scan skills. A PATH holding SKILL.md is one skill; any other folder is
/// walked and every folder below it holding a SKILL.md is a skill.
#[derive(Debug, Parser)]
#[command(name = BIN, version, after_help = format!("{EXAMPLES}\n\n{EXIT_CODES_HELP}"))]
struct Args {
    /// Skill folders or folders of skills [default: $HERMES_HOME/skills]
    paths: Vec<PathBuf>,
    /// Trust level for the install decision
    #[arg(long, value_enum, default_value_t = Trust::Community)]
    trust: Trust,
    /// Exit 1 when a skill's verdict is this or worse; `install`: when the install decision
    /// at --trust is not allow
    #[arg(long, value_enum, default_value_t = FailOn::Dangerous, value_name = "VERDICT")]
    fail_on: FailOn,
    /// Also run the linter; lint errors then fail the run
    #[arg(long)]
    lint: bool,
    /// Run the linter alone
    #[arg(long, conflicts_with = "lint")]
    lint_only: bool,
    /// Lint profile: the agentskills.io spec, or what Hermes reads
    #[arg(long, value_enum, value_name = "PROFILE", default_value_t = Profile::Hermes)]
    lint_profile: Profile,
    /// Output format [default: text on a terminal, jsonl otherwise]
    #[arg(long, value_enum)]
    format: Option<ScanFormat>,
    /// Worker threads [default: all cores]
    #[arg(short = 'j', long = "threads", value_name = "N")]
    threads: Option<usize>,
    /// Explain a rule (scanner or lint) and exit
    #[arg(long, value_name = "RULE")]
    explain: Option<String>,
    /// Ignore findings recorded in this baseline file
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every finding of this run to FILE as the new baseline
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Ask the configured model for a second opinion on skills left at caution or at safe
    /// with findings; recorded as `judge` records, never changing a verdict or the exit code
    #[arg(long)]
    judge: bool,
    /// With --judge: write the model's exchanges to a cassette
    #[arg(
        long,
        value_name = "FILE",
        requires = "judge",
        conflicts_with = "replay"
    )]
    record: Option<PathBuf>,
    /// With --judge: answer from a cassette instead of a model
    #[arg(long, value_name = "FILE", requires = "judge")]
    replay: Option<PathBuf>,
    /// SARIF URIs relative to DIR [default: the top of the git repository holding the first
    /// PATH, else the current directory]
    #[arg(long, value_name = "DIR")]
    sarif_root: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    Caution,
    Dangerous,
    /// The install decision at --trust is not `allow` (block, or ask: a script cannot ask)
    Install,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ScanFormat {
    Text,
    Json,
    Jsonl,
    Sarif,
}

// No huge pages, before anything is allocated: each fresh 2 MiB would be zeroed at its first
// touch. Over a tree of skills that doubled the system time, with a long tail of slow runs;
// even one skill starts 5 % faster without them now that most rules' automata come
// prebuilt and little memory is used (`docs/decisions.md`).
hermes_loop::without_huge_pages_from_the_start!();

fn main() -> ExitCode {
    exit::run(BIN, || {
        let args = hermes_loop::cli::parse::<Args>();
        // Malformed HERMES_NOW is an error in every binary, used or not.
        hermes_loop::clock::now()?;
        if let Some(id) = &args.explain {
            return explain_rule(id, args.format);
        }
        hermes_loop::guard::prebuilt::enable();
        let paths = match args.paths.is_empty() {
            true => vec![Home::resolve_existing(args.common.home.as_deref())?.skills_dir()],
            false => args.paths.clone(),
        };
        // A bad baseline is found before the scan, not after its warnings.
        let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
        let options = RunOptions {
            scan: ScanOptions {
                trust: args.trust,
                honor_suppressions: true,
                ..ScanOptions::default()
            },
            // A baseline records what any gate will check: the scan and the linter both.
            lint: (args.lint || args.lint_only || args.write_baseline.is_some())
                .then_some(args.lint_profile),
            lint_only: args.lint_only && args.write_baseline.is_none(),
        };
        // Drawn only once the run has lasted long enough to read it (progress::DELAY).
        let bar = progress::bar_in(0, "scanning", args.common.quiet, Units::Count("skills"));
        let found = || bar.inc_length(1);
        let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
            ScanFormat::Text
        } else {
            ScanFormat::Jsonl
        });
        // JSONL records are rendered by the thread that scanned the skill, not after the
        // last one; a baseline changes the findings after the run, so not with one.
        let render = format == ScanFormat::Jsonl && baseline.is_none();
        let finish = |result: &batch::SkillResult| {
            bar.inc(1);
            render.then(|| report::skill_jsonl(result, args.trust))
        };
        let only_skill_folders = paths.iter().all(|p| names_one_skill(p));
        // One thread, or only skill folders named: no pool to start, no walk to overlap.
        let here = args.threads == Some(1) || only_skill_folders;
        let (outcome, elapsed) = if here {
            batch::timed(|| {
                batch::find_and_run_here(&paths, &options, &found, &finish)
                    .map_err(anyhow::Error::from)
            })
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(args.threads.unwrap_or(0))
                .build()
                .context("cannot start worker threads")?;
            batch::timed(|| {
                pool.install(|| batch::find_and_run(&paths, &options, &found, &finish))
                    .map_err(anyhow::Error::from)
            })
        };
        let batch::Ran {
            mut results,
            finished: rendered,
            problems,
        } = outcome?;
        bar.finish_and_clear();
        // A scan that could not read what it was asked to scan has not passed, whatever
        // --fail-on and --quiet say: name every path, report nothing.
        let unreadable: Vec<&String> = problems
            .unreadable
            .iter()
            .chain(results.iter().flat_map(|r| &r.unreadable))
            .collect();
        if !unreadable.is_empty() {
            for line in &unreadable {
                eprintln!("{BIN}: error: cannot read {line}");
            }
            return Err(Hinted::new(
                format!(
                    "{} could not be read; nothing was reported",
                    count(unreadable.len(), "path")
                ),
                "give the scanning user read access (folders also need x), or scan only what it can read",
            )
            .into());
        }
        if !args.common.quiet {
            for problem in &problems.warnings {
                exit::warn(BIN, problem);
            }
            if results.is_empty() {
                exit::warn(BIN, "no skills found (no folder holds a SKILL.md)");
            }
        }
        if let Some(path) = &args.write_baseline {
            let baseline = Baseline::of(&results);
            baseline.write(path)?;
            if !args.common.quiet {
                eprintln!(
                    "{BIN}: wrote {} to {} ({} scanner finding{}, {} lint issue{}, {} profile)",
                    count(baseline.findings.len() + baseline.lint.len(), "finding"),
                    path.display(),
                    baseline.findings.len(),
                    plural(baseline.findings.len()),
                    baseline.lint.len(),
                    plural(baseline.lint.len()),
                    args.lint_profile.as_str(),
                );
            }
        }
        if let Some(baseline) = &baseline {
            baseline.apply(&mut results);
        }
        let summary = Summary::of(&results, elapsed);
        let judged = if args.judge {
            judge(&args, &results)?
        } else {
            Vec::new()
        };
        print(
            &args, &paths, format, &results, &rendered, &summary, &judged,
        )?;
        let status = exit_status(&args, &results);
        // The process ends here: the kernel takes back the heap at once, faster than every
        // finding's strings are freed one by one (half a millisecond after 1,400 skills,
        // with every other thread done).
        std::mem::forget((results, rendered));
        Ok(status)
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// A path that is one skill: its folder or its SKILL.md.
fn names_one_skill(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == SKILL_FILE) || path.join(SKILL_FILE).is_file()
}

fn explain_rule(id: &str, format: Option<ScanFormat>) -> anyhow::Result<Exit> {
    let Some(text) = explain::explain(id) else {
        let similar = explain::similar(id);
        let hint = if similar.is_empty() {
            "`--explain list` lists every rule id; ids also appear in every finding (`rule`)"
                .to_string()
        } else {
            format!("did you mean: {}", similar.join(", "))
        };
        return Err(Hinted::new(format!("no rule `{id}`"), hint).into());
    };
    let mut out = Output::stdout();
    // Text unless a JSON format is asked for by name.
    let record = || serde_json::json!({"rule": id, "explanation": text});
    match format {
        Some(ScanFormat::Json) => out.json(&record())?,
        Some(ScanFormat::Jsonl) => out.jsonl(&record())?,
        _ => out.raw(text.as_bytes())?,
    }
    out.finish()?;
    Ok(Exit::Success)
}

/// The model's second opinions (`--judge`).
fn judge(args: &Args, results: &[batch::SkillResult]) -> anyhow::Result<Vec<serde_json::Value>> {
    let home = Home::resolve(args.common.home.as_deref())?;
    let config = hermes_loop::home::Config::load(&home)?;
    let connect = hermes_loop::llm::connect::ConnectOptions {
        record: args.record.clone(),
        replay: args.replay.clone(),
        quiet: args.common.quiet,
        ..Default::default()
    };
    let interrupt = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (transport, endpoint) =
        hermes_loop::llm::connect::open(BIN, &home, &config, &connect, interrupt.clone())?;
    let mut client = hermes_loop::llm::Client::new(transport, Default::default(), interrupt);
    Ok(hermes_loop::judge::run(&mut client, &endpoint, results))
}

/// `rendered`: each skill's JSONL records, if the workers rendered them (else empty).
fn print(
    args: &Args,
    paths: &[PathBuf],
    format: ScanFormat,
    results: &[batch::SkillResult],
    rendered: &[Option<serde_json::Result<Vec<u8>>>],
    summary: &Summary,
    judged: &[serde_json::Value],
) -> anyhow::Result<()> {
    let mut out = Output::stdout();
    match format {
        ScanFormat::Jsonl => {
            for (number, result) in results.iter().enumerate() {
                match rendered.get(number) {
                    Some(Some(Ok(lines))) => out.raw(lines)?,
                    _ => out.raw(&report::skill_jsonl(result, args.trust)?)?,
                }
            }
            // The judge's records come before the summary, which stays last.
            for record in judged {
                out.jsonl(record)?;
            }
            out.jsonl(&report::summary_record(summary))?;
        }
        ScanFormat::Json => {
            let mut document = report::document(results, summary, args.trust);
            if args.judge {
                document["judge"] = serde_json::Value::Array(judged.to_vec());
            }
            out.json(&document)?
        }
        ScanFormat::Sarif => {
            let options = match &args.sarif_root {
                Some(root) => sarif::Options::with_root(root),
                None => sarif::Options::for_paths(paths),
            };
            out.json(&sarif::log(results, &options))?
        }
        ScanFormat::Text => {
            report::text(&mut out, results, summary, args.trust, stdout_color())?;
            for j in judged {
                let field = |k: &str| j.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
                let said = match j.get("error") {
                    Some(_) => format!("no opinion ({})", field("error")),
                    None => format!("{} — {}", field("verdict"), field("reason")),
                };
                let line = format!(
                    "judge: {} (rules: {}): {said}",
                    field("skill"),
                    field("rule_verdict")
                );
                // The reason is a model's text: nothing in it reaches the terminal raw.
                out.line(&hermes_loop::io::sanitize::for_terminal(&line))?;
            }
        }
    }
    out.finish()?;
    Ok(())
}

fn exit_status(args: &Args, results: &[batch::SkillResult]) -> Exit {
    if args.write_baseline.is_some() {
        return Exit::Success;
    }
    let threshold = match args.fail_on {
        FailOn::Caution => Some(Verdict::Caution),
        FailOn::Dangerous => Some(Verdict::Dangerous),
        FailOn::Install | FailOn::Never => None,
    };
    let reports = || results.iter().filter_map(|r| r.report.as_ref());
    let bad_verdict = match args.fail_on {
        // What `scan && install` needs: the decision the install would take.
        FailOn::Install => reports().any(|r| r.install() != Install::Allow),
        _ => threshold.is_some_and(|t| reports().any(|r| r.verdict >= t)),
    };
    let lint_errors = (args.lint || args.lint_only)
        && results
            .iter()
            .any(|r| r.lint_count(hermes_loop::skills::lint::Level::Error) > 0);
    if bad_verdict || lint_errors {
        Exit::Negative
    } else {
        Exit::Success
    }
}
