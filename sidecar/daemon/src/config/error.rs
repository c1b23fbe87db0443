//! The one error of configuration: a problem, naming the field it is about.

/// A configuration problem, naming the field (`server.listen`, …).
#[derive(Debug, thiserror::Error)]
#[error("config error: {field}: {message}")]
pub struct ConfigError {
    /// Dotted path of the field.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl ConfigError {
    /// An error about `field`.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into() }
    }

    /// Wraps an error from the config sources (parse, unknown key, wrong type).
    pub fn from_source(e: config::ConfigError) -> Self {
        Self::field("config", e.to_string())
    }
}
