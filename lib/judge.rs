//! `hermes-skill-scan --judge`: a second opinion from the configured model on the skills the
//! rules leave at safe-with-findings or caution. The model sees the skill and the findings
//! and answers a verdict with a reason; its answer is recorded beside the rules' verdict
//! (`judge` records) and never changes it, so a model can neither hide a finding nor fail a
//! CI run on its own. Off unless asked for.

use serde_json::{Value, json};

use crate::guard::batch::SkillResult;
use crate::guard::policy::Verdict;
use crate::llm::{Client, Endpoint};

const SYSTEM: &str = "You review AI-agent skills (SKILL.md files and their scripts) for a \
security scanner. An agent follows a skill's prose and runs its commands, so an instruction \
in plain words is as dangerous as a command. The scanner's rules flagged the findings listed \
with the skill. Judge whether the skill, taken as a whole, is safe for an agent to follow: \
'safe' (the flagged text is harmless here), 'caution' (risky but plausibly legitimate; a \
person should look), or 'dangerous' (it steals data, destroys data, runs untrusted code, \
tampers with the agent, or hides what it does). Answer with one JSON object and nothing \
else: {\"verdict\": \"safe|caution|dangerous\", \"reason\": \"one sentence\"}.";

/// The most of a skill's text sent to the model.
const MAX_SKILL_CHARS: usize = 20_000;

/// The skills worth a second opinion: caution, or safe with findings left.
pub fn candidates(results: &[SkillResult]) -> Vec<&SkillResult> {
    results
        .iter()
        .filter(|r| {
            r.report.as_ref().is_some_and(|rep| {
                rep.verdict == Verdict::Caution
                    || (rep.verdict == Verdict::Safe && !rep.findings.is_empty())
            })
        })
        .collect()
}

/// The request for one skill: no tools, not streamed.
pub fn body(endpoint: &Endpoint, result: &SkillResult, skill_md: &str) -> Option<Value> {
    let report = result.report.as_ref()?;
    let findings: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            format!(
                "- {} ({}, {}) at {}:{}: {}",
                f.rule,
                f.severity.as_str(),
                f.category.as_str(),
                f.file,
                f.line,
                f.excerpt
            )
        })
        .collect();
    let text: String = skill_md.chars().take(MAX_SKILL_CHARS).collect();
    let user = format!(
        "Skill: {}\nThe rules' verdict: {}\n\nFindings:\n{}\n\nSKILL.md:\n{text}",
        report.name,
        report.verdict.as_str(),
        findings.join("\n")
    );
    let mut body = json!({"model": endpoint.model, "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": user}]});
    if let Some(max) = endpoint.max_tokens {
        body["max_tokens"] = json!(max.min(1024));
    }
    Some(body)
}

/// Reads the model's answer: the first JSON object in it with a known verdict.
pub fn parse(answer: &str) -> Result<(String, String), String> {
    let start = answer.find('{').ok_or("the answer holds no JSON object")?;
    let end = answer.rfind('}').ok_or("the answer holds no JSON object")?;
    let value: Value = serde_json::from_str(&answer[start..=end.max(start)])
        .map_err(|e| format!("the answer is not JSON: {e}"))?;
    let verdict = value
        .get("verdict")
        .and_then(Value::as_str)
        .map(str::to_lowercase)
        .filter(|v| ["safe", "caution", "dangerous"].contains(&v.as_str()))
        .ok_or("the answer has no verdict of safe, caution or dangerous")?;
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Ok((verdict, reason))
}

/// One `judge` record per candidate, in the order of `results`.
pub fn run(client: &mut Client, endpoint: &Endpoint, results: &[SkillResult]) -> Vec<Value> {
    candidates(results)
        .into_iter()
        .filter_map(|result| {
            let report = result.report.as_ref()?;
            let skill_md = std::fs::read_to_string(report.path.join("SKILL.md")).unwrap_or_default();
            let body = body(endpoint, result, &skill_md)?;
            let mut record = json!({"type": "judge", "skill": report.name,
                "path": report.path.display().to_string(), "rule_verdict": report.verdict.as_str()});
            match client.complete(&body, &mut |_| {}, &mut ()) {
                Ok(done) => match parse(done.text()) {
                    Ok((verdict, reason)) => {
                        record["verdict"] = json!(verdict);
                        record["reason"] = json!(reason);
                    }
                    Err(e) => record["error"] = json!(e),
                },
                Err(failure) => record["error"] = json!(failure.to_string()),
            }
            Some(record)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_leniently_but_verdicts_strictly() {
        assert_eq!(
            parse("Sure: {\"verdict\": \"Dangerous\", \"reason\": \"steals keys\"}").unwrap(),
            ("dangerous".to_string(), "steals keys".to_string())
        );
        assert!(parse("{\"verdict\": \"fine\"}").is_err());
        assert!(parse("no json").is_err());
    }
}
