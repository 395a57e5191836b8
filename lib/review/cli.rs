//! The `hermes-review` command: flags in, the model resolved (the chat's, or the review's own
//! when routed), the conversation read, one review run, records out. The binary parses flags
//! and calls [`run`].

use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;

use std::sync::{Arc, Mutex};

use super::batch::{self, Source};
use super::input::{self, Conversation};
use super::prompts::Kind;
use super::run::{self, Report, ScratchHome, Setup};
use super::summary::Notify;
use crate::agent::Clock;
use crate::home::{Config, Home};
use crate::io::exit::Hinted;
use crate::io::format::Format;
use crate::io::jsonl;
use crate::llm::Transport;
use crate::llm::cassette::{Recorder, Replayer};
use crate::llm::endpoint::{self, Endpoint, Env, Overrides};
use crate::llm::http::{HttpSettings, HttpTransport};

const BIN: &str = "hermes-review";

/// What the flags asked for.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    pub home: Option<PathBuf>,
    /// FILE, or `-`/none for stdin.
    pub input: Option<PathBuf>,
    pub memory: bool,
    pub skills: bool,
    pub overrides: Overrides,
    pub notify: Option<String>,
    pub propose: bool,
    pub dry_run: bool,
    pub record: Option<PathBuf>,
    pub replay: Option<PathBuf>,
    pub format: Option<Format>,
    pub quiet: bool,
    /// `--batch`: the input is one session object per line.
    pub batch: bool,
    /// `-j`: reviews at a time in a batch.
    pub jobs: usize,
    /// `--again`: review sessions a batch already reviewed.
    pub again: bool,
    /// `eval CASES.jsonl`: score the model on labelled cases.
    pub eval: Option<PathBuf>,
}

/// 0 the review ran (whatever it decided); 1 it failed (model or API error, budget spent,
/// replay divergence) — what it wrote before stays written; setup errors are `Err` (exit 2).
pub fn run(mut options: ReviewOptions) -> anyhow::Result<u8> {
    cassette_from_env(&mut options, &|name| std::env::var_os(name));
    let home = Home::resolve(options.home.as_deref())?;
    let config = Config::load(&home)?;
    if let Some(path) = &options.eval {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let file = std::io::BufReader::new(file);
        let text = jsonl::read_text(file, jsonl::MAX_SESSION_LINE_BYTES, usize::MAX)
            .with_context(|| format!("bad case: {}", path.display()))?;
        let cases = super::eval::parse_cases(&text)?;
        let (setup, source, _) = prepare(&options, home, config, true)?;
        let mut printer = Printer::new(options.format);
        let mut emit = |record: &Value| printer.emit(record);
        let summary = super::eval::run(&setup, &cases, &mut || source.make_one(), &mut emit)?;
        printer.finish()?;
        return Ok(eval_exit(&summary));
    }
    let text = read_input(options.input.as_deref())?;
    if options.batch {
        let sessions = read_sessions(&text)?;
        let (setup, source, _) = prepare(&options, home, config, true)?;
        return run_batch(&options, &setup, &sessions, &source);
    }
    let mut session = None;
    let reviewed = (|| {
        let conversation = input::parse(&text).map_err(|e| anyhow::anyhow!("bad input: {e}"))?;
        session = conversation.session_id.clone();
        if conversation.messages.is_empty() {
            anyhow::bail!("nothing to review: the input holds no messages");
        }
        let (setup, source, scratch) = prepare(&options, home.clone(), config, false)?;
        let report = run::review(&setup, &conversation, source.make_one()?, scratch.as_ref())?;
        Ok((setup, report))
    })();
    if !options.dry_run {
        run::log_outcome(
            &home,
            options.input.as_deref(),
            session.as_deref(),
            &reviewed,
            options.propose,
        );
    }
    let (setup, report) = reviewed?;
    print(&options, &setup, &report)
}

/// A note on stderr, unless `--quiet`.
fn say(quiet: bool, text: &str) {
    if !quiet {
        eprintln!("{BIN}: {text}");
    }
}

/// `eval`'s exit code: 1 when a case's review failed (its scores are still printed).
fn eval_exit(summary: &Value) -> u8 {
    let failed = summary.get("failed").and_then(Value::as_u64).unwrap_or(0);
    u8::from(failed > 0)
}

/// hermes-chat starts the review with `--home H FILE` only; `HERMES_REVIEW_REPLAY` (else
/// `HERMES_REVIEW_RECORD`) lets an offline demo or test hand it a cassette through the chat.
/// A cassette flag wins.
fn cassette_from_env(
    options: &mut ReviewOptions,
    get: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) {
    if options.replay.is_some() || options.record.is_some() {
        return;
    }
    let var = |name: &str| get(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    options.replay = var("HERMES_REVIEW_REPLAY");
    if options.replay.is_none() {
        options.record = var("HERMES_REVIEW_RECORD");
    }
}

/// One session object per line (what `hermes-index export` writes).
fn read_sessions(text: &str) -> anyhow::Result<Vec<Conversation>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("bad input: line {}: {}", i + 1, jsonl::json_error(&e)))?;
        out.push(input::session(i + 1, &value).map_err(|e| anyhow::anyhow!("bad input: {e}"))?);
    }
    Ok(out)
}

fn run_batch(
    options: &ReviewOptions,
    setup: &Setup,
    sessions: &[Conversation],
    source: &Source,
) -> anyhow::Result<u8> {
    if reviews_one_at_a_time(source, options.jobs) {
        say(
            options.quiet,
            "a cassette is read in order: reviewing one session at a time",
        );
    }
    let mut printer = Printer::new(options.format);
    let mut emit = |record: &Value| printer.emit(record);
    let totals = batch::run(
        setup,
        sessions,
        source,
        options.jobs,
        options.again,
        &mut emit,
    )?;
    printer.emit(&totals.record())?;
    printer.finish()?;
    if totals.failed > 0 {
        eprintln!(
            "{BIN}: {} of {} review(s) failed; run the batch again to retry them",
            totals.failed,
            totals.sessions - totals.skipped
        );
        return Ok(1);
    }
    Ok(0)
}

/// Whether `-j` is more than the source allows: a cassette is read in order.
fn reviews_one_at_a_time(source: &Source, jobs: usize) -> bool {
    !source.parallel() && jobs > 1
}

fn read_input(path: Option<&std::path::Path>) -> anyhow::Result<String> {
    let text = match path.filter(|p| p.as_os_str() != "-") {
        Some(p) => {
            let file =
                std::fs::File::open(p).with_context(|| format!("cannot read {}", p.display()))?;
            // A line may hold a whole exported session (--batch).
            jsonl::read_text(
                std::io::BufReader::new(file),
                jsonl::MAX_SESSION_LINE_BYTES,
                usize::MAX,
            )
            .with_context(|| format!("bad input: {}", p.display()))?
        }
        None => {
            jsonl::announce_stdin(
                "hermes-review",
                "a conversation, or sessions with --batch (JSONL)",
                None,
            );
            jsonl::read_text(
                std::io::stdin().lock(),
                jsonl::MAX_SESSION_LINE_BYTES,
                usize::MAX,
            )
            .context("bad input: stdin")?
        }
    };
    Ok(text)
}

/// The review's model: `--model/--provider/--base-url`, else `auxiliary.background_review.*`
/// when it names a provider (not `auto`) and a model, else the chat's. Routed when it is not
/// the chat's model and provider.
fn resolve_endpoint(
    options: &ReviewOptions,
    config: &Config,
    env: &Env,
) -> Result<(Endpoint, bool), endpoint::EndpointError> {
    // The chat's model: what hermes-chat ran on, when it started this review.
    let chat = super::handoff::chat_overrides(&|name| env.get(name).map(str::to_string));
    let main = endpoint::resolve(config, &chat, env);
    let raw = config.raw().to_json();
    let slot = |key: &str| {
        raw.pointer(&format!("/auxiliary/background_review/{key}"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let flags = &options.overrides;
    let (wanted, slot_key) =
        if flags.model.is_some() || flags.provider.is_some() || flags.base_url.is_some() {
            (Some(flags.clone()), None)
        } else {
            match (slot("provider"), slot("model")) {
                (Some(p), Some(m)) if p != "auto" => (
                    Some(Overrides {
                        model: Some(m),
                        provider: Some(p),
                        base_url: slot("base_url"),
                    }),
                    slot("api_key"),
                ),
                _ => (None, None),
            }
        };
    let Some(wanted) = wanted else {
        return main.map(|ep| (ep, false));
    };
    let mut ep = endpoint::resolve(config, &wanted, env)?;
    if let Some(key) = slot_key {
        ep.api_key = key;
    }
    let routed = match &main {
        Ok(m) => m.model != ep.model || m.provider != ep.provider || m.base_url != ep.base_url,
        Err(_) => true,
    };
    Ok((ep, routed))
}

fn prepare(
    options: &ReviewOptions,
    home: Home,
    config: Config,
    batch: bool,
) -> anyhow::Result<(Setup, Source, Option<ScratchHome>)> {
    let now = crate::clock::now()?;
    let fixed = crate::clock::fixed_seconds(now, std::env::var(crate::clock::NOW_VAR).ok());
    let env = Env::load(&home.env_file());
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let scratch = if options.propose && !options.dry_run && !batch {
        Some(ScratchHome::copy_of(&home).context("cannot copy the stores for --propose")?)
    } else {
        None
    };
    let placeholders = run::placeholders(home.root(), &cwd);
    let resolved = resolve_endpoint(options, &config, &env);
    let (source, endpoint, routed): (Source, Endpoint, bool) = match &options.replay {
        Some(path) => {
            let replayer = Replayer::open(path, placeholders).map_err(|e| {
                anyhow::Error::new(Hinted::new(
                    e,
                    "record one with --record FILE against a live endpoint",
                ))
            })?;
            let (configured, routed) = match resolved {
                Ok((ep, routed)) => (Some(ep), routed),
                Err(_) => (None, false),
            };
            let ep = replayer.endpoint(configured);
            say(
                options.quiet,
                &format!(
                    "replaying {} ({} recorded call(s)); no model is contacted",
                    path.display(),
                    replayer.len()
                ),
            );
            (
                Source::Shared(Arc::new(Mutex::new(Box::new(replayer)))),
                ep,
                routed,
            )
        }
        None => {
            let (ep, routed) =
                resolved.map_err(|e| anyhow::Error::new(Hinted::new(e.to_string(), e.hint())))?;
            let settings =
                HttpSettings::for_endpoint(&ep, crate::llm::http::read_timeout_from(&env)?);
            let http = move || -> anyhow::Result<Box<dyn Transport>> {
                Ok(Box::new(HttpTransport::new(
                    settings.clone(),
                    Arc::new(std::sync::atomic::AtomicBool::new(false)),
                )?))
            };
            let source = match &options.record {
                Some(path) => Source::Shared(Arc::new(Mutex::new(Box::new(
                    Recorder::create(path, http()?, placeholders)
                        .with_context(|| format!("cannot write the cassette {}", path.display()))?,
                )))),
                None => Source::Fresh(Box::new(http)),
            };
            (source, ep, routed)
        }
    };
    let notify = match &options.notify {
        Some(flag) => Notify::parse(Some(&Value::String(flag.clone()))),
        None => Notify::parse(
            config
                .raw()
                .to_json()
                .pointer("/display/memory_notifications"),
        ),
    };
    let both = !options.memory && !options.skills;
    let setup = Setup {
        home,
        config,
        endpoint,
        routed,
        kind: Kind {
            memory: both || options.memory,
            skills: both || options.skills,
        },
        notify,
        propose: options.propose,
        dry_run: options.dry_run,
        clock: Clock::new(fixed),
        cwd,
        quiet: options.quiet,
    };
    Ok((setup, source, scratch))
}

fn print(options: &ReviewOptions, setup: &Setup, report: &Report) -> anyhow::Result<u8> {
    if setup.dry_run {
        let mut out = crate::io::output::Output::stdout();
        match &report.request {
            Some(body) => out.json(body)?,
            None => anyhow::bail!("the review built no request"),
        }
        out.finish()?;
        return Ok(0);
    }
    let mut printer = Printer::new(options.format);
    for record in &report.records {
        printer.emit(record)?;
    }
    printer.finish()?;
    if let Some(failure) = &report.failure {
        eprintln!("{BIN}: review failed: {failure}");
        return Ok(1);
    }
    Ok(0)
}

/// Records out in the format asked for: JSONL as they come, JSON as one array at the end,
/// text a line each for a person (the review's, a batch's and eval's records alike).
struct Printer {
    out: crate::io::output::Output,
    format: Format,
    collected: Vec<Value>,
}

impl Printer {
    fn new(format: Option<Format>) -> Printer {
        Printer {
            out: crate::io::output::Output::stdout(),
            format: Format::resolve(format),
            collected: Vec::new(),
        }
    }

    fn emit(&mut self, record: &Value) -> std::io::Result<()> {
        match self.format {
            Format::Jsonl => self.out.jsonl(record),
            Format::Json => {
                self.collected.push(record.clone());
                Ok(())
            }
            Format::Text => match text_line(record) {
                Some(text) => self.out.line(&text),
                None => Ok(()),
            },
        }
    }

    fn finish(mut self) -> std::io::Result<()> {
        if self.format == Format::Json {
            self.out.json(&self.collected)?;
        }
        self.out.finish()
    }
}

/// A record for a person: what each call did, then the summary line; in a batch, each
/// prefixed with its session, then the totals; in eval, each case and the scores.
fn text_line(record: &Value) -> Option<String> {
    let line = record_text(record)?;
    Some(match record.get("session").and_then(Value::as_str) {
        Some(session) => {
            crate::io::sanitize::for_terminal(&format!("{session}: {line}")).into_owned()
        }
        None => line,
    })
}

fn record_text(record: &Value) -> Option<String> {
    let field = |k: &str| record.get(k).and_then(Value::as_str).unwrap_or("");
    let number = |k: &str| record.get(k).and_then(Value::as_u64).unwrap_or(0);
    let args = record.get("arguments").cloned().unwrap_or(Value::Null);
    let what = [
        args.get("action").and_then(Value::as_str),
        args.get("name").and_then(Value::as_str),
        args.get("target").and_then(Value::as_str),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    match field("type") {
        "action" => {
            let result = record.get("result").cloned().unwrap_or(Value::Null);
            let said = result
                .get("message")
                .or_else(|| result.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some(
                crate::io::sanitize::for_terminal(&format!("{} {what}: {said}", field("tool")))
                    .into_owned(),
            )
        }
        "proposal" => Some(
            crate::io::sanitize::for_terminal(&format!(
                "proposed {} {what}\n{}",
                field("tool"),
                field("diff")
            ))
            .into_owned(),
        ),
        "summary" => Some(
            record
                .get("line")
                .and_then(Value::as_str)
                .unwrap_or("💾 Self-improvement review: nothing saved")
                .to_string(),
        ),
        "batch" => Some(format!(
            "{} session(s): {} reviewed, {} skipped, {} failed; {} write(s), {} request(s)",
            number("sessions"),
            number("reviewed"),
            number("skipped"),
            number("failed"),
            number("writes"),
            number("requests")
        )),
        "case" => {
            let got = record
                .get("got")
                .and_then(Value::as_array)
                .map(|g| {
                    g.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let verdict = if record.get("ok") == Some(&Value::Bool(true)) {
                "right"
            } else {
                "wrong"
            };
            let mut line = format!(
                "{}: {verdict}: expected {}, got {got}",
                field("id"),
                field("expected")
            );
            if let Some(error) = record.get("error").and_then(Value::as_str) {
                line.push_str(&format!(" (failed: {error})"));
            }
            Some(crate::io::sanitize::for_terminal(&line).into_owned())
        }
        "eval" => {
            let score = |v: Option<&Value>| match v.and_then(Value::as_f64) {
                Some(x) => format!("{x:.3}"),
                None => "-".to_string(),
            };
            let mut line = format!(
                "{}: {} of {} right (accuracy {}), {} failed, {} duplicate(s), {} forbidden save(s)",
                field("model"),
                number("correct"),
                number("cases"),
                score(record.get("accuracy")),
                number("failed"),
                number("duplicates_proposed"),
                number("forbidden_saves")
            );
            if let Some(classes) = record.get("classes").and_then(Value::as_object) {
                for (class, c) in classes {
                    line.push_str(&format!(
                        "\n  {class}: precision {}, recall {}",
                        score(c.get("precision")),
                        score(c.get("recall"))
                    ));
                }
            }
            Some(crate::io::sanitize::for_terminal(&line).into_owned())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAT: &str =
        "model: {provider: custom, base_url: 'http://127.0.0.1:9/v1', default: chat-m}\n";

    fn resolved(options: &ReviewOptions, yaml: &str) -> (String, String, String, bool) {
        let env = Env::from_pairs(&[]);
        let Ok((ep, routed)) = resolve_endpoint(options, &Config::from_yaml(yaml), &env) else {
            panic!("an endpoint")
        };
        (ep.model, ep.base_url, ep.api_key, routed)
    }

    #[test]
    fn the_review_model_is_the_flags_then_the_config_slot_then_the_chats() {
        let plain = ReviewOptions::default();
        assert_eq!(
            resolved(&plain, CHAT),
            (
                "chat-m".into(),
                "http://127.0.0.1:9/v1".into(),
                "no-key-required".into(),
                false
            )
        );
        let slot = format!(
            "{CHAT}auxiliary:\n  background_review:\n    provider: custom\n    model: ' rev-m '\n    base_url: 'http://127.0.0.1:8/v1'\n    api_key: sk-slot\n"
        );
        assert_eq!(
            resolved(&plain, &slot),
            (
                "rev-m".into(),
                "http://127.0.0.1:8/v1".into(),
                "sk-slot".into(),
                true
            )
        );
        // `auto` means the chat's model.
        let auto = format!(
            "{CHAT}auxiliary:\n  background_review:\n    provider: auto\n    model: rev-m\n"
        );
        assert_eq!(resolved(&plain, &auto).0, "chat-m");
        assert!(!resolved(&plain, &auto).3);
        // Flags win over the slot; naming the chat's own model is not routing.
        let mut same = ReviewOptions::default();
        same.overrides.model = Some("chat-m".into());
        assert_eq!(resolved(&same, &slot).0, "chat-m");
        assert!(!resolved(&same, &slot).3);
        let mut other = ReviewOptions::default();
        other.overrides.model = Some("flag-m".into());
        assert_eq!(resolved(&other, &slot).0, "flag-m");
        assert!(resolved(&other, &slot).3);
    }

    #[test]
    fn a_cassette_comes_from_the_environment_unless_a_flag_names_one() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let cassettes = |options: &ReviewOptions| {
            (
                options.replay.as_ref().map(|p| p.display().to_string()),
                options.record.as_ref().map(|p| p.display().to_string()),
            )
        };
        let both = env(&[
            ("HERMES_REVIEW_REPLAY", "r.jsonl"),
            ("HERMES_REVIEW_RECORD", "w.jsonl"),
        ]);
        let mut options = ReviewOptions::default();
        cassette_from_env(&mut options, &both);
        assert_eq!(cassettes(&options), (Some("r.jsonl".into()), None));
        let record = env(&[
            ("HERMES_REVIEW_REPLAY", ""),
            ("HERMES_REVIEW_RECORD", "w.jsonl"),
        ]);
        let mut options = ReviewOptions::default();
        cassette_from_env(&mut options, &record);
        assert_eq!(cassettes(&options), (None, Some("w.jsonl".into())));
        for flagged in [
            ReviewOptions {
                record: Some("mine.jsonl".into()),
                ..ReviewOptions::default()
            },
            ReviewOptions {
                replay: Some("mine.jsonl".into()),
                ..ReviewOptions::default()
            },
        ] {
            let mut options = flagged.clone();
            cassette_from_env(&mut options, &both);
            assert_eq!(cassettes(&options), cassettes(&flagged));
        }
    }

    #[test]
    fn eval_fails_only_when_a_review_failed() {
        use serde_json::json;
        assert_eq!(eval_exit(&json!({"failed": 0, "correct": 0})), 0);
        assert_eq!(eval_exit(&json!({"failed": 1})), 1);
        assert_eq!(eval_exit(&json!({"failed": 7})), 1);
        assert_eq!(eval_exit(&json!({})), 0);
    }

    #[test]
    fn a_batch_exits_1_when_a_review_failed() {
        use crate::llm::Transport;
        use crate::llm::testing::{Scripted, answer};
        let dir = tempfile::tempdir().expect("tempdir");
        let setup = crate::review::run::tests::setup(dir.path());
        let sessions = [crate::review::run::tests::conversation()];
        let options = ReviewOptions {
            quiet: true,
            jobs: 1,
            ..ReviewOptions::default()
        };
        let answers = Source::Fresh(Box::new(|| {
            Ok(Box::new(Scripted::new(vec![answer("Nothing to save.")])) as Box<dyn Transport>)
        }));
        assert_eq!(
            run_batch(&options, &setup, &sessions, &answers).ok(),
            Some(0)
        );
        let silent = Source::Fresh(Box::new(|| {
            Ok(Box::new(Scripted::new(Vec::new())) as Box<dyn Transport>)
        }));
        let again = ReviewOptions {
            again: true,
            ..options.clone()
        };
        assert_eq!(run_batch(&again, &setup, &sessions, &silent).ok(), Some(1));
        let shared = Source::Shared(std::sync::Arc::new(std::sync::Mutex::new(Box::new(
            Scripted::new(Vec::new()),
        )
            as Box<dyn Transport>)));
        assert!(reviews_one_at_a_time(&shared, 2));
        assert!(!reviews_one_at_a_time(&shared, 1));
        assert!(!reviews_one_at_a_time(&answers, 2));
    }

    #[test]
    fn the_input_is_the_named_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("talk.jsonl");
        let _ = std::fs::write(&path, "{\"role\": \"user\", \"content\": \"hi\"}\n");
        assert_eq!(
            read_input(Some(&path)).ok().as_deref(),
            Some("{\"role\": \"user\", \"content\": \"hi\"}\n")
        );
        let missing = dir.path().join("missing.jsonl");
        let Err(e) = read_input(Some(&missing)) else {
            panic!("refused")
        };
        assert_eq!(e.to_string(), format!("cannot read {}", missing.display()));
    }

    #[test]
    fn any_model_flag_wins_and_any_difference_routes() {
        let slot = format!(
            "{CHAT}auxiliary:\n  background_review:\n    provider: custom\n    model: rev-m\n"
        );
        let mut provider_only = ReviewOptions::default();
        provider_only.overrides.provider = Some("custom".into());
        assert_eq!(resolved(&provider_only, &slot).0, "chat-m");
        assert!(!resolved(&provider_only, &slot).3);
        let mut url_only = ReviewOptions::default();
        url_only.overrides.base_url = Some("http://127.0.0.1:7/v1".into());
        let (model, url, _, routed) = resolved(&url_only, &slot);
        assert_eq!(
            (model.as_str(), url.as_str(), routed),
            ("chat-m", "http://127.0.0.1:7/v1", true)
        );
    }

    fn prepared(
        options: &ReviewOptions,
        dir: &std::path::Path,
        batch: bool,
    ) -> (Setup, Source, bool) {
        let home = Home::at(dir);
        let Ok((setup, source, scratch)) = prepare(options, home, Config::from_yaml(CHAT), batch)
        else {
            panic!("prepared")
        };
        (setup, source, scratch.is_some())
    }

    #[test]
    fn prepare_sets_the_review_up_as_the_flags_say() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = ReviewOptions {
            quiet: true,
            ..ReviewOptions::default()
        };
        let (setup, source, scratch) = prepared(&plain, dir.path(), false);
        assert_eq!(
            setup.kind,
            Kind {
                memory: true,
                skills: true
            }
        );
        assert_eq!(setup.notify, Notify::On);
        assert_eq!(
            (setup.endpoint.model.as_str(), setup.routed),
            ("chat-m", false)
        );
        assert!(source.parallel(), "live reviews run side by side");
        assert!(!scratch);
        let memory_only = ReviewOptions {
            memory: true,
            notify: Some("verbose".into()),
            ..plain.clone()
        };
        let (setup, _, _) = prepared(&memory_only, dir.path(), false);
        assert_eq!(
            setup.kind,
            Kind {
                memory: true,
                skills: false
            }
        );
        assert_eq!(setup.notify, Notify::Verbose);
        let skills_only = ReviewOptions {
            skills: true,
            ..plain.clone()
        };
        assert_eq!(
            prepared(&skills_only, dir.path(), false).0.kind,
            Kind {
                memory: false,
                skills: true
            }
        );
        // --propose works on a scratch copy, except in a dry run or a batch.
        let propose = ReviewOptions {
            propose: true,
            ..plain.clone()
        };
        assert!(prepared(&propose, dir.path(), false).2);
        assert!(!prepared(&propose, dir.path(), true).2);
        let dry = ReviewOptions {
            dry_run: true,
            ..propose.clone()
        };
        assert!(!prepared(&dry, dir.path(), false).2);
        // A recording is one transport, used in order.
        let record = ReviewOptions {
            record: Some(dir.path().join("rec.jsonl")),
            ..plain.clone()
        };
        assert!(!prepared(&record, dir.path(), false).1.parallel());
        assert!(dir.path().join("rec.jsonl").is_file());
    }

    #[test]
    fn batch_and_eval_records_read_as_a_line_for_a_person() {
        let summary = serde_json::json!({"type": "summary", "session": "s1",
            "line": "💾 Self-improvement review: nothing saved"});
        assert_eq!(
            text_line(&summary).as_deref(),
            Some("s1: 💾 Self-improvement review: nothing saved")
        );
        let totals = serde_json::json!({"type": "batch", "sessions": 3, "reviewed": 2,
            "skipped": 1, "failed": 0, "writes": 4, "requests": 5, "bytes_sent": 9});
        assert_eq!(
            text_line(&totals).as_deref(),
            Some("3 session(s): 2 reviewed, 1 skipped, 0 failed; 4 write(s), 5 request(s)")
        );
        let case = serde_json::json!({"type": "case", "id": "x", "expected": "memory",
            "got": ["nothing"], "ok": false, "error": "HTTP 500"});
        assert_eq!(
            text_line(&case).as_deref(),
            Some("x: wrong: expected memory, got nothing (failed: HTTP 500)")
        );
        let right = serde_json::json!({"type": "case", "id": "y", "expected": "memory",
            "got": ["memory", "skill_patch"], "ok": true, "error": null});
        assert_eq!(
            text_line(&right).as_deref(),
            Some("y: right: expected memory, got memory, skill_patch")
        );
        let eval = serde_json::json!({"type": "eval", "model": "m", "cases": 2, "correct": 1,
            "accuracy": 0.5, "failed": 1, "duplicates_proposed": 0, "forbidden_saves": 0,
            "classes": {"memory": {"precision": null, "recall": 1.0}}});
        assert_eq!(
            text_line(&eval).as_deref(),
            Some(
                "m: 1 of 2 right (accuracy 0.500), 1 failed, 0 duplicate(s), 0 forbidden save(s)\n  memory: precision -, recall 1.000"
            )
        );
    }

    #[test]
    fn printing_a_review_exits_1_when_it_failed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let setup = crate::review::run::tests::setup(dir.path());
        let options = ReviewOptions::default();
        let ok = Report::default();
        assert_eq!(print(&options, &setup, &ok).ok(), Some(0));
        let failed = Report {
            failure: Some("the model went away".into()),
            ..Report::default()
        };
        assert_eq!(print(&options, &setup, &failed).ok(), Some(1));
        let mut dry = crate::review::run::tests::setup(dir.path());
        dry.dry_run = true;
        let request = Report {
            request: Some(serde_json::json!({"model": "m1"})),
            ..Report::default()
        };
        assert_eq!(print(&options, &dry, &request).ok(), Some(0));
        let Err(e) = print(&options, &dry, &ok) else {
            panic!("no request")
        };
        assert_eq!(e.to_string(), "the review built no request");
    }

    #[test]
    fn records_read_as_lines_for_people() {
        let action = serde_json::json!({"type": "action", "tool": "memory",
            "arguments": {"action": "add", "target": "user", "content": "x"},
            "result": {"success": true, "message": "Entry added."}});
        assert_eq!(
            text_line(&action).as_deref(),
            Some("memory add user: Entry added.")
        );
        let refused = serde_json::json!({"type": "action", "tool": "skill_manage",
            "arguments": {"action": "patch", "name": "deploy"},
            "result": {"success": false, "error": "no such skill\u{1b}[2J"}});
        assert_eq!(
            text_line(&refused).as_deref(),
            Some("skill_manage patch deploy: no such skill\\u{1b}[2J")
        );
        let proposal = serde_json::json!({"type": "proposal", "tool": "memory",
            "arguments": {"action": "add", "target": "memory"}, "diff": "+a\n"});
        assert_eq!(
            text_line(&proposal).as_deref(),
            Some("proposed memory add memory\n+a\n")
        );
        let quiet = serde_json::json!({"type": "summary", "line": null});
        assert_eq!(
            text_line(&quiet).as_deref(),
            Some("💾 Self-improvement review: nothing saved")
        );
        let said = serde_json::json!({"type": "summary", "line": "💾 Self-improvement review: Memory updated"});
        assert_eq!(
            text_line(&said).as_deref(),
            Some("💾 Self-improvement review: Memory updated")
        );
        assert_eq!(text_line(&serde_json::json!({"type": "read"})), None);
    }

    #[test]
    fn sessions_are_read_one_per_line_and_a_bad_one_is_named() {
        let text = "{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n\n{\"id\": \"b\", \"messages\": []}\n";
        let Ok(sessions) = read_sessions(text) else {
            panic!("read")
        };
        let ids: Vec<Option<&str>> = sessions.iter().map(|s| s.session_id.as_deref()).collect();
        assert_eq!(ids, [Some("a"), Some("b")]);
        assert_eq!(sessions[0].messages.len(), 1);
        let Err(e) = read_sessions("\n{}\n") else {
            panic!("refused")
        };
        assert_eq!(
            e.to_string(),
            "bad input: line 2: a session needs a \"messages\" array"
        );
        let Err(e) = read_sessions("{oops\n") else {
            panic!("refused")
        };
        assert_eq!(
            e.to_string(),
            "bad input: line 1: invalid JSON at column 2: key must be a string"
        );
    }
}
