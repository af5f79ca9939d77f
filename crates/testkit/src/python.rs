//! Receivers' own tools, for checking what we send the way they will: the PyPI `standardwebhooks` package in a
//! virtual environment under the build's target directory, made once (by whichever test first needs it) and reused
//! by every later run. Nothing is installed system-wide.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The version of the PyPI package that verifies deliveries.
pub const STANDARDWEBHOOKS: &str = "1.1.0";

/// Verifies a delivery with the PyPI `standardwebhooks` package: `Ok` when `Webhook(secret).verify(body, headers)`
/// accepts it, else the library's complaint.
pub fn verify_standard_webhook(secret: &str, headers: &[(String, String)], body: &str) -> Result<(), String> {
    let python = virtual_env()?;
    let script = "import json, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        given = json.load(sys.stdin)\n\
        try:\n    Webhook(given['secret']).verify(given['body'], given['headers'])\n\
        except Exception as error:\n    print(type(error).__name__, error); sys.exit(1)\n";
    let input = format!(
        "{{\"secret\": {}, \"body\": {}, \"headers\": {{{}}}}}",
        json_string(secret),
        json_string(body),
        headers
            .iter()
            .map(|(name, value)| format!("{}: {}", json_string(name), json_string(value)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|error| format!("python: {error}"))?;
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().ok_or("python's stdin")?;
        stdin.write_all(input.as_bytes()).map_err(|error| error.to_string())?;
    }
    let output = child.wait_with_output().map_err(|error| error.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The Python of the virtual environment, made if this build has none yet.
fn virtual_env() -> Result<PathBuf, String> {
    static MADE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    MADE.get_or_init(|| {
        let home = target_dir().join(format!("standardwebhooks-{STANDARDWEBHOOKS}"));
        let python = home.join("bin").join("python");
        if python.exists() {
            return Ok(python);
        }
        // Made aside and renamed into place, so tests of several processes never use a half-made environment.
        let aside = target_dir().join(crate::scratch::unique("standardwebhooks-making"));
        run(Command::new("python3").args(["-m", "venv"]).arg(&aside))?;
        run(Command::new(aside.join("bin").join("pip")).args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("standardwebhooks=={STANDARDWEBHOOKS}"),
        ]))?;
        if std::fs::rename(&aside, &home).is_err() {
            // Another process got there first: use its environment.
            let _ = std::fs::remove_dir_all(&aside);
        }
        Ok(python)
    })
    .clone()
}

fn run(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|error| format!("{command:?}: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("{command:?}: {}", String::from_utf8_lossy(&output.stderr)))
    }
}

/// The build's target directory: `CARGO_TARGET_DIR`, or `target` at the workspace's root.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    )
}
