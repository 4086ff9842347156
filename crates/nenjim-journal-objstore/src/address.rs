//! Addresses of roots and content stores: a local path or a URL.
//!
//! | address | where |
//! | --- | --- |
//! | `/srv/journal`, `journal`, `file:///srv/journal` | the local file system |
//! | `s3://bucket/prefix` | S3 or a compatible store |
//! | `gs://bucket/prefix` | Google Cloud Storage |
//! | `az://container/prefix` | Azure Blob Storage |
//! | `memory://` | a new, empty in-memory store (tests) |
//!
//! Credentials, region and endpoint come from each store's standard
//! environment variables, read by `object_store`'s `from_env` builders:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL` (an S3-compatible server), `AWS_ALLOW_HTTP=true`
//! (a plain-HTTP endpoint); `GOOGLE_SERVICE_ACCOUNT` (a service account's
//! JSON file) or `GOOGLE_SERVICE_ACCOUNT_KEY` (its JSON),
//! `GOOGLE_APPLICATION_CREDENTIALS`; `AZURE_STORAGE_ACCOUNT_NAME` with
//! `AZURE_STORAGE_ACCOUNT_KEY` (or `AZURE_STORAGE_ACCESS_KEY`, a SAS token,
//! a client secret …), `AZURE_STORAGE_USE_EMULATOR=true` for Azurite (at
//! `http://127.0.0.1:10000`, or at `AZURITE_BLOB_STORAGE_URL`, which
//! `object_store` reads from the process's environment itself).
//!
//! Over HTTPS a store (any of the three) trusts the system's roots and,
//! besides them, the PEM files named by `AWS_CA_BUNDLE` and `SSL_CERT_FILE`
//! (see [`crate::tls`]).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use object_store::ObjectStore;

use crate::ObjectFs;

/// Where a root (or a content store) lives.
#[derive(Debug, Clone)]
pub enum Address {
    /// A path on the local file system.
    Local(PathBuf),
    /// A path inside an object store.
    Object {
        /// The store.
        store: Arc<ObjectFs>,
        /// The path inside it (`/` and the URL's path).
        root: PathBuf,
    },
}

impl Address {
    /// The path: the local path, or the path inside the store.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Address::Local(path) => path,
            Address::Object { root, .. } => root,
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Reads an address: a URL with a scheme (`s3://`, `gs://`, `az://`,
/// `file://`, `memory://`) or else a local path. A store's configuration
/// comes from the process's environment (see the [module docs](self)).
pub fn parse_address(text: &str) -> io::Result<Address> {
    parse_address_with_env(text, std::env::vars())
}

/// [`parse_address`] with the environment given as (name, value) pairs
/// instead of read from the process (for tests, or an embedder that keeps
/// its configuration elsewhere). The variables read are those of the
/// URL's store, `AWS_…`, `GOOGLE_…` or `AZURE_…`, each as `object_store`'s
/// `from_env` builders read it (a name it does not know is ignored).
///
/// Nothing is sent anywhere: a store is configured, not contacted. A
/// missing or malformed setting is an `InvalidInput` error that names the
/// variable to set or fix (never its value, which may be a secret).
/// Without any credential variable a client falls back, at its first
/// request, to its platform's ambient credentials (an instance's metadata
/// service, a managed identity), which only that request can tell.
pub fn parse_address_with_env<I, K, V>(text: &str, env: I) -> io::Result<Address>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let Some((scheme, rest)) = text.split_once("://") else {
        return Ok(Address::Local(PathBuf::from(text)));
    };
    if scheme == "file" {
        return Ok(Address::Local(PathBuf::from(rest)));
    }
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let root = PathBuf::from("/").join(prefix.trim_matches('/'));
    let variables = match scheme {
        "s3" => "AWS_",
        "gs" => "GOOGLE_",
        "az" => "AZURE_",
        _ => "",
    };
    let env: Vec<(String, String)> = env
        .into_iter()
        .filter(|(k, _)| {
            let k = k.as_ref();
            // The CA files, for every store (what a refused certificate's
            // message names).
            !variables.is_empty()
                && (k.starts_with(variables) || crate::tls::CA_VARIABLES.contains(&k))
        })
        .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
        .collect();
    // Each builder with the variables it knows, as `from_env` sets them.
    macro_rules! configured {
        ($builder:expr) => {
            env.iter().fold($builder, |builder, (name, value)| {
                match name.to_ascii_lowercase().parse() {
                    Ok(key) => builder.with_config(key, value),
                    Err(_) => builder,
                }
            })
        };
    }
    let config = |e: object_store::Error| {
        let set: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        let from = if set.is_empty() {
            format!("no {variables}… variable is set")
        } else {
            format!("read {}", set.join(", "))
        };
        invalid(format!(
            "cannot configure the store of {text} from the environment ({from}): {e}"
        ))
    };
    let is_set = |name: &str| env.iter().any(|(k, v)| k == name && !v.is_empty());
    if scheme != "memory" && bucket.is_empty() {
        return Err(invalid(format!(
            "found no bucket in {text}, expected {scheme}://<bucket>/<prefix>"
        )));
    }
    let connector = || -> io::Result<crate::tls::Connector> {
        crate::tls::install_crypto_provider();
        Ok(crate::tls::Connector {
            roots: crate::tls::extra_roots(&env)?,
        })
    };
    let store: Arc<dyn ObjectStore> = match scheme {
        "memory" => Arc::new(object_store::memory::InMemory::new()),
        "s3" => Arc::new(
            configured!(object_store::aws::AmazonS3Builder::new())
                .with_http_connector(connector()?)
                .with_bucket_name(bucket)
                .build()
                .map_err(config)?,
        ),
        "gs" => Arc::new(
            configured!(object_store::gcp::GoogleCloudStorageBuilder::new())
                .with_http_connector(connector()?)
                .with_bucket_name(bucket)
                .build()
                .map_err(config)?,
        ),
        "az" => {
            let emulator = env
                .iter()
                .any(|(k, v)| k == "AZURE_STORAGE_USE_EMULATOR" && v == "true");
            if !emulator && !is_set("AZURE_STORAGE_ACCOUNT_NAME") {
                return Err(invalid(format!(
                    "found no Azure storage account for {text}, expected AZURE_STORAGE_ACCOUNT_NAME \
                     set (with a credential such as AZURE_STORAGE_ACCOUNT_KEY), or \
                     AZURE_STORAGE_USE_EMULATOR=true for a local emulator"
                )));
            }
            Arc::new(
                configured!(object_store::azure::MicrosoftAzureBuilder::new())
                    .with_http_connector(connector()?)
                    .with_container_name(bucket)
                    .build()
                    .map_err(config)?,
            )
        }
        other => {
            return Err(invalid(format!(
                "found the scheme `{other}://` in {text}, expected s3://, gs://, az://, file:// or memory://"
            )));
        }
    };
    let location = format!("{scheme}://{bucket}");
    Ok(Address::Object {
        store: Arc::new(ObjectFs::new(store, location)?),
        root,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::path::Path;

    use nenjim_journal_store::BlobStore as _;

    use super::{Address, parse_address_with_env};

    /// A service account key that `object_store` takes without contacting
    /// Google (no OAuth): what a GCS emulator is configured with.
    const KEY: &str = r#"{"private_key": "k", "private_key_id": "i", "client_email": "e", "disable_oauth": true}"#;
    /// A well-formed (base64) Azure account key.
    const ACCOUNT_KEY: &str = "a2V5IG9mIGEgdGVzdCBhY2NvdW50";

    /// The store's description, its location and the root path.
    fn built(text: &str, env: &[(&str, &str)]) -> (String, String, String) {
        match parse_address_with_env(text, env.iter().copied()) {
            Ok(Address::Object { store, root }) => (
                format!("{}", store.object_store()),
                store.location(),
                root.display().to_string(),
            ),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn refused(text: &str, env: &[(&str, &str)]) -> String {
        match parse_address_with_env(text, env.iter().copied()) {
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
                e.to_string()
            }
            Ok(address) => panic!("{text}: {address:?}"),
        }
    }

    #[test]
    fn gs_and_az_addresses_build_their_stores_from_the_environment() {
        let (store, location, root) = built(
            "gs://journal-bucket/journals/main/",
            &[
                ("GOOGLE_SERVICE_ACCOUNT_KEY", KEY),
                ("AWS_REGION", "ignored"),
            ],
        );
        assert!(store.contains("journal-bucket"), "{store}");
        assert_eq!(
            (location.as_str(), root.as_str()),
            ("gs://journal-bucket", "/journals/main")
        );

        let account = [
            ("AZURE_STORAGE_ACCOUNT_NAME", "nenjimtest"),
            ("AZURE_STORAGE_ACCOUNT_KEY", ACCOUNT_KEY),
        ];
        let (store, location, root) = built("az://container/a/b", &account);
        assert!(
            store.contains("nenjimtest") && store.contains("container"),
            "{store}"
        );
        assert_eq!(
            (location.as_str(), root.as_str()),
            ("az://container", "/a/b")
        );
        // The alias of the key, and the emulator's defaults (Azurite).
        built(
            "az://container",
            &[
                ("AZURE_STORAGE_ACCOUNT_NAME", "nenjimtest"),
                ("AZURE_STORAGE_ACCESS_KEY", ACCOUNT_KEY),
            ],
        );
        let (store, _, root) = built("az://c", &[("AZURE_STORAGE_USE_EMULATOR", "true")]);
        assert!(store.contains("devstoreaccount1"), "{store}");
        assert_eq!(root, "/");

        let (store, location, root) = built(
            "s3://bucket/p",
            &[
                ("AWS_ACCESS_KEY_ID", "a"),
                ("AWS_SECRET_ACCESS_KEY", "b"),
                ("AWS_REGION", "eu-west-1"),
            ],
        );
        assert!(store.contains("bucket"), "{store}");
        assert_eq!((location.as_str(), root.as_str()), ("s3://bucket", "/p"));
        assert!(matches!(
            parse_address_with_env("file:///srv/j", [("AZURE_X", "y")]),
            Ok(Address::Local(p)) if p == Path::new("/srv/j")
        ));
    }

    #[test]
    fn a_missing_or_malformed_setting_names_its_variable() {
        let message = refused("az://container/prefix", &[]);
        assert!(
            message.contains("AZURE_STORAGE_ACCOUNT_NAME")
                && message.contains("az://container/prefix"),
            "{message}"
        );
        let message = refused(
            "az://container",
            &[
                ("AZURE_STORAGE_ACCOUNT_NAME", "n"),
                ("AZURE_STORAGE_ACCOUNT_KEY", "not base64!"),
            ],
        );
        assert!(message.contains("AZURE_STORAGE_ACCOUNT_KEY"), "{message}");
        assert!(
            !message.contains("not base64!"),
            "a secret is never shown: {message}"
        );
        let message = refused(
            "gs://bucket/p",
            &[(
                "GOOGLE_SERVICE_ACCOUNT",
                "/nonexistent/service-account.json",
            )],
        );
        assert!(message.contains("GOOGLE_SERVICE_ACCOUNT"), "{message}");
        assert!(
            message.contains("/nonexistent/service-account.json"),
            "{message}"
        );
        let message = refused(
            "gs://bucket/p",
            &[("GOOGLE_SERVICE_ACCOUNT_KEY", "{not json")],
        );
        assert!(message.contains("GOOGLE_SERVICE_ACCOUNT_KEY"), "{message}");
        let message = refused(
            "gs://bucket/p",
            &[
                ("GOOGLE_SERVICE_ACCOUNT_KEY", KEY),
                ("GOOGLE_SERVICE_ACCOUNT", "/k.json"),
            ],
        );
        assert!(
            message.contains("GOOGLE_SERVICE_ACCOUNT_KEY, GOOGLE_SERVICE_ACCOUNT"),
            "{message}"
        );
        assert!(refused("gs:///p", &[]).contains("found no bucket"));
        assert!(refused("ftp://host/p", &[]).contains("expected s3://"));
    }
}
