//! The retry policy around a transport (reference `agent` §2.6): up to `attempts` tries per
//! call; retryable failures wait `Retry-After` (capped at 600 s) or a jittered exponential
//! backoff; the wait ends early on an interrupt. The final error names how many tries were
//! made, as Hermes's does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Transport;
use super::completion::{Completion, Delta};
use super::error::LlmError;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Attempts per call, the first included (`agent.api_max_retries`, 3).
    pub attempts: u32,
    /// The first backoff; each later one doubles, capped at 60 s, plus up to half again of
    /// random jitter.
    pub backoff_base: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 3,
            backoff_base: Duration::from_secs(2),
        }
    }
}

/// A call that failed for good.
#[derive(Debug)]
pub struct Failure {
    pub error: LlmError,
    /// Attempts made (1 for a non-retryable error).
    pub attempts: u32,
    /// Successful-looking answers that were discarded are not counted; this is only for
    /// the message.
    pub retried: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.retried {
            write!(
                f,
                "API call failed after {} retries: {}",
                self.attempts, self.error
            )
        } else {
            write!(f, "{}", self.error)
        }
    }
}

/// What the client tells its caller while it waits.
pub trait RetryObserver {
    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, wait: Duration);
}

impl RetryObserver for () {
    fn retrying(&mut self, _: u32, _: u32, _: &LlmError, _: Duration) {}
}

pub struct Client {
    transport: Box<dyn Transport>,
    policy: RetryPolicy,
    interrupt: Arc<AtomicBool>,
    /// Calls made, failed attempts included.
    pub requests: u64,
}

impl Client {
    pub fn new(
        transport: Box<dyn Transport>,
        policy: RetryPolicy,
        interrupt: Arc<AtomicBool>,
    ) -> Client {
        Client {
            transport,
            policy,
            interrupt,
            requests: 0,
        }
    }

    pub fn transport_mut(&mut self) -> &mut dyn Transport {
        self.transport.as_mut()
    }

    /// Sends `body` until it succeeds, fails for good, or is interrupted.
    pub fn complete(
        &mut self,
        body: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
        observer: &mut dyn RetryObserver,
    ) -> Result<Completion, Failure> {
        let attempts = self.policy.attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.requests += 1;
            let error = match self.transport.call(body, on_delta) {
                Ok(done) => return Ok(done),
                Err(e) => e,
            };
            if !error.is_retryable() || attempt >= attempts {
                let retried = error.is_retryable() && attempts > 1;
                return Err(Failure {
                    error,
                    attempts: attempt,
                    retried,
                });
            }
            let wait = self.backoff(attempt, &error);
            observer.retrying(attempt, attempts, &error, wait);
            if !self.sleep(wait) {
                return Err(Failure {
                    error: LlmError::Interrupted { partial: None },
                    attempts: attempt,
                    retried: false,
                });
            }
        }
    }

    fn backoff(&self, attempt: u32, error: &LlmError) -> Duration {
        if let LlmError::Http {
            retry_after: Some(wait),
            ..
        } = error
        {
            return (*wait).min(Duration::from_secs(600));
        }
        let base = self.policy.backoff_base.as_secs_f64();
        let exp = (base * 2f64.powi(attempt as i32 - 1)).min(60.0);
        Duration::from_secs_f64(exp + jitter() * 0.5 * exp)
    }

    /// Sleeps in short steps so an interrupt is seen quickly; `false` when interrupted.
    fn sleep(&self, wait: Duration) -> bool {
        let end = Instant::now() + wait;
        loop {
            if self.interrupt.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= end {
                return true;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(100)));
        }
    }
}

/// A number in [0, 1) from the clock's low bits: the jitter only has to keep clients apart.
fn jitter() -> f64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    f64::from(nanos % 1000) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::Scripted;

    fn http(status: u16) -> Result<Completion, LlmError> {
        Err(LlmError::Http {
            status,
            message: "boom".into(),
            retry_after: None,
        })
    }

    fn client(script: Vec<Result<Completion, LlmError>>) -> Client {
        Client::new(
            Box::new(Scripted::new(script)),
            RetryPolicy {
                attempts: 3,
                backoff_base: Duration::from_millis(1),
            },
            Arc::new(AtomicBool::new(false)),
        )
    }

    #[test]
    fn three_server_errors_fail_with_the_count() {
        let mut c = client(vec![http(500), http(500), http(500)]);
        let err = c.complete(&Value::Null, &mut |_| {}, &mut ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "API call failed after 3 retries: HTTP 500: boom"
        );
        assert_eq!(c.requests, 3);
    }

    #[test]
    fn an_auth_error_is_not_retried() {
        let mut c = client(vec![http(401)]);
        let err = c.complete(&Value::Null, &mut |_| {}, &mut ()).unwrap_err();
        assert_eq!(err.to_string(), "HTTP 401: boom");
        assert_eq!(c.requests, 1);
    }

    fn http_after(status: u16, wait: Duration) -> Result<Completion, LlmError> {
        Err(LlmError::Http {
            status,
            message: "later".into(),
            retry_after: Some(wait),
        })
    }

    fn with_policy(attempts: u32, script: Vec<Result<Completion, LlmError>>) -> Client {
        Client::new(
            Box::new(Scripted::new(script)),
            RetryPolicy {
                attempts,
                backoff_base: Duration::from_secs(1),
            },
            Arc::new(AtomicBool::new(false)),
        )
    }

    #[derive(Default)]
    struct Seen(Vec<(u32, u32, Duration)>);

    impl RetryObserver for Seen {
        fn retrying(&mut self, attempt: u32, of: u32, _: &LlmError, wait: Duration) {
            self.0.push((attempt, of, wait));
        }
    }

    #[test]
    fn the_wait_is_retry_after_capped_at_ten_minutes_else_a_doubling_backoff() {
        let c = with_policy(3, vec![]);
        let connect = LlmError::Connect {
            detail: "refused".into(),
        };
        for (attempt, low) in [(1, 1.0), (2, 2.0), (3, 4.0), (7, 60.0), (30, 60.0)] {
            let wait = c.backoff(attempt, &connect).as_secs_f64();
            assert!(
                (low..low * 1.5).contains(&wait),
                "attempt {attempt}: {wait} s"
            );
        }
        let asked = |secs: u64| LlmError::Http {
            status: 429,
            message: String::new(),
            retry_after: Some(Duration::from_secs(secs)),
        };
        assert_eq!(c.backoff(1, &asked(7)), Duration::from_secs(7));
        assert_eq!(c.backoff(1, &asked(601)), Duration::from_secs(600));
    }

    #[test]
    fn each_retry_is_told_to_the_observer_with_its_wait() {
        let wait = Duration::from_millis(1);
        let mut c = with_policy(3, vec![http_after(503, wait), http_after(429, wait)]);
        let mut seen = Seen::default();
        assert!(c.complete(&Value::Null, &mut |_| {}, &mut seen).is_err());
        assert_eq!(seen.0, [(1, 3, wait), (2, 3, wait)]);
        assert_eq!(c.requests, 3);
    }

    #[test]
    fn one_attempt_is_not_called_a_retry_and_zero_means_one() {
        for attempts in [0, 1] {
            let mut c = with_policy(attempts, vec![http(500), http(500)]);
            let err = c.complete(&Value::Null, &mut |_| {}, &mut ()).unwrap_err();
            assert_eq!(err.to_string(), "HTTP 500: boom");
            assert_eq!((err.attempts, err.retried), (1, false));
            assert_eq!(c.requests, 1);
        }
    }

    #[test]
    fn an_interrupt_ends_the_wait() {
        let interrupt = Arc::new(AtomicBool::new(true));
        let mut c = Client::new(
            Box::new(Scripted::new(vec![http_after(
                503,
                Duration::from_secs(600),
            )])),
            RetryPolicy::default(),
            interrupt,
        );
        let err = c.complete(&Value::Null, &mut |_| {}, &mut ()).unwrap_err();
        assert!(matches!(err.error, LlmError::Interrupted { partial: None }));
        assert_eq!((err.attempts, err.retried), (1, false));
        assert_eq!(
            RetryPolicy::default(),
            RetryPolicy {
                attempts: 3,
                backoff_base: Duration::from_secs(2)
            }
        );
    }

    /// A long wait is really waited out, until an interrupt ends it (no clock is read by the
    /// test: the answer says which of the two happened).
    #[test]
    fn a_wait_lasts_until_its_end_or_an_interrupt() {
        let interrupt = Arc::new(AtomicBool::new(false));
        let c = Client::new(
            Box::new(Scripted::new(Vec::new())),
            RetryPolicy::default(),
            interrupt.clone(),
        );
        let flag = interrupt.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            flag.store(true, Ordering::SeqCst);
        });
        assert!(!c.sleep(Duration::from_secs(30)), "interrupted, not over");
        let _ = setter.join();
        interrupt.store(false, Ordering::SeqCst);
        assert!(c.sleep(Duration::ZERO), "a wait of nothing is over at once");
    }

    #[test]
    fn a_retry_that_succeeds_returns_the_answer() {
        let mut c = client(vec![http(429), Ok(Completion::default())]);
        assert!(c.complete(&Value::Null, &mut |_| {}, &mut ()).is_ok());
        assert_eq!(c.requests, 2);
    }
}
