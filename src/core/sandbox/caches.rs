//! Package caches in the sandbox (`caches: 'private' | 'shared' | 'none'`).
//!
//! Package managers keep their downloads in the person's home (`~/.npm`,
//! `~/.cargo/registry`, `~/go/pkg/mod`, `~/.cache/pip`, ...), outside the
//! workspace, so in the sandbox their first write is refused and the install
//! fails. The person's own caches must not simply be made writable: what a
//! sandboxed program puts there (a rewritten package, a compiled object, a
//! tool's config) is what the person's next build outside the sandbox runs.
//!
//! - [`Caches::Private`] (the default): one per-user folder,
//!   `$XDG_CACHE_HOME/ptypilot/sandbox` (`~/.cache/ptypilot/sandbox`), is
//!   writable in the sandbox, and each package manager is pointed at its own
//!   folder in it through its documented variable ([`private_env`]). The
//!   person's Cargo `config.toml` is copied into the private `CARGO_HOME`
//!   at every start, since Cargo reads it from there.
//! - [`Caches::Shared`]: the person's own cache folders (those that exist)
//!   are writable, and nothing is redirected. Whatever the sandbox writes
//!   there, the person's own builds use later: a poisoned cache runs
//!   outside the sandbox.
//! - [`Caches::None`]: neither; a package manager's write to its cache is
//!   refused.
//!
//! The private folder is shared by every sandboxed program of the user: it
//! keeps the person's caches clean, not one workspace's downloads from
//! another's.

use std::path::{Path, PathBuf};

/// Where a sandboxed program's package managers keep their caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Caches {
    /// A per-user ptypilot cache folder, writable in the sandbox, that the
    /// package managers are pointed at.
    #[default]
    Private,
    /// The person's own cache folders, writable in the sandbox.
    Shared,
    /// No cache folder is writable and no variable is set.
    None,
}

impl Caches {
    /// The setting as the option spells it (`'private'`).
    pub fn as_str(self) -> &'static str {
        match self {
            Caches::Private => "private",
            Caches::Shared => "shared",
            Caches::None => "none",
        }
    }

    /// The setting named `name`, or `None`.
    pub fn parse(name: &str) -> Option<Caches> {
        Some(match name {
            "private" => Caches::Private,
            "shared" => Caches::Shared,
            "none" => Caches::None,
            _ => return None,
        })
    }
}

/// The folder in the private cache folder each variable names: the
/// variable each tool documents for its cache (or for the home that holds
/// it), and `XDG_CACHE_HOME` for the tools that follow it (node-gyp's
/// headers, pnpm's metadata, ccache, pre-commit, poetry, ...).
pub const PRIVATE_VARIABLES: &[(&str, &str)] = &[
    ("npm_config_cache", "npm"),
    // pnpm 11 and later read `pnpm_config_*`; pnpm 10 keeps its store in
    // `$PNPM_HOME/store` (an `npm_config_store_dir` would make npm warn of
    // an unknown setting on every run). `PNPM_HOME` is also where
    // `pnpm add -g` puts programs: in the sandbox, here.
    ("pnpm_config_store_dir", "pnpm/store"),
    ("PNPM_HOME", "pnpm/home"),
    ("pnpm_config_cache_dir", "pnpm/cache"),
    ("pnpm_config_state_dir", "pnpm/state"),
    // Yarn 1's cache; Yarn 2+ keeps its cache under the global folder.
    ("YARN_CACHE_FOLDER", "yarn"),
    ("YARN_GLOBAL_FOLDER", "yarn-berry"),
    ("COREPACK_HOME", "corepack"),
    ("PIP_CACHE_DIR", "pip"),
    ("UV_CACHE_DIR", "uv"),
    // Cargo keeps `registry/` and `git/` (and its lock files) in its home.
    ("CARGO_HOME", "cargo"),
    ("GOPATH", "go"),
    ("GOMODCACHE", "go/pkg/mod"),
    ("GOCACHE", "go-build"),
    ("DENO_DIR", "deno"),
    ("BUN_INSTALL_CACHE_DIR", "bun"),
    ("XDG_CACHE_HOME", "xdg"),
];

/// What the caches add to one program's sandbox.
#[derive(Debug, Default)]
pub(crate) struct Setup {
    /// Folders (and, for Cargo's lock files, files) made writable.
    pub writable: Vec<PathBuf>,
    /// Variables to set in the program's environment.
    pub env: Vec<(String, String)>,
    /// The private cache folder (`Caches::Private`), when it could be made.
    pub dir: Option<PathBuf>,
}

/// A variable of the program's environment `env`, else of this process.
fn var(env: &[(String, String)], name: &str) -> Option<PathBuf> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var(name).ok())
        .filter(|v| Path::new(v).is_absolute())
        .map(PathBuf::from)
}

/// `$XDG_CACHE_HOME`, else `$HOME/.cache`.
fn cache_home(env: &[(String, String)]) -> Option<PathBuf> {
    var(env, "XDG_CACHE_HOME").or_else(|| var(env, "HOME").map(|h| h.join(".cache")))
}

/// The private cache folder, `$XDG_CACHE_HOME/ptypilot/sandbox`, made
/// (mode 0700) when missing; `None` when there is no home to put it in or
/// it cannot be made.
fn private_dir(env: &[(String, String)]) -> Option<PathBuf> {
    let dir = cache_home(env)?.join("ptypilot").join("sandbox");
    if !dir.is_dir() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).ok()?;
    }
    std::fs::canonicalize(&dir).ok()
}

/// The variables that point each package manager at its folder in `dir`.
pub fn private_env(dir: &Path) -> Vec<(String, String)> {
    PRIVATE_VARIABLES
        .iter()
        .map(|(name, sub)| {
            (
                (*name).to_owned(),
                dir.join(sub).to_string_lossy().into_owned(),
            )
        })
        .collect()
}

/// Copies the person's Cargo configuration into the private `CARGO_HOME`
/// (`cargo`), and removes one a sandboxed program left there when the
/// person has none: Cargo reads `$CARGO_HOME/config.toml`, and the person's
/// settings (registries, `net.git-fetch-with-cli`, ...) must hold inside too.
/// Credentials are not copied.
///
/// Everything under `dir` is the sandbox's to write, and this process is not
/// confined: a `cargo` or `config.toml` that a sandboxed program made a
/// symlink would have it remove or overwrite a file outside (another
/// repository's `.git/config`, a `~/.bashrc`). So nothing here follows a
/// symlink: `cargo` is opened with `O_NOFOLLOW` (a symlink or file there is
/// removed and the folder made again), and the files are removed and made
/// anew relative to that descriptor (`unlinkat`, `openat` with `O_EXCL`).
#[cfg(unix)]
fn copy_cargo_config(env: &[(String, String)], dir: &Path) {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let own = var(env, "CARGO_HOME").or_else(|| var(env, "HOME").map(|h| h.join(".cargo")));
    let source = own.and_then(|home| {
        ["config.toml", "config"]
            .iter()
            .map(|name| home.join(name))
            .find(|p| p.is_file())
    });
    let text = source.and_then(|p| std::fs::read(p).ok());
    let private = dir.join("cargo");
    if std::fs::symlink_metadata(&private).is_ok_and(|m| !m.is_dir()) {
        let _ = std::fs::remove_file(&private);
    }
    if text.is_some() {
        let _ = std::fs::create_dir(&private);
    }
    let Ok(path) = std::ffi::CString::new(private.as_os_str().as_bytes()) else {
        return;
    };
    // SAFETY: open, unlinkat and openat on C strings; each descriptor is
    // owned by a File that closes it.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return;
        }
        let folder = std::fs::File::from_raw_fd(fd);
        let at = folder.as_raw_fd();
        libc::unlinkat(at, c"config".as_ptr(), 0);
        libc::unlinkat(at, c"config.toml".as_ptr(), 0);
        if let Some(text) = text {
            let fd = libc::openat(
                at,
                c"config.toml".as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o644,
            );
            if fd >= 0 {
                let _ = std::fs::File::from_raw_fd(fd).write_all(&text);
            }
        }
    }
}

#[cfg(not(unix))]
fn copy_cargo_config(_: &[(String, String)], _: &Path) {}

/// The person's own cache folders and files that exist (`Caches::Shared`).
fn shared_paths(env: &[(String, String)]) -> Vec<PathBuf> {
    let home = var(env, "HOME");
    let under_home = |rel: &str| home.as_ref().map(|h| h.join(rel));
    let xdg_data = var(env, "XDG_DATA_HOME").or_else(|| under_home(".local/share"));
    let cargo = var(env, "CARGO_HOME").or_else(|| under_home(".cargo"));
    let gopath = env
        .iter()
        .rev()
        .find(|(k, _)| k == "GOPATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("GOPATH").ok())
        .and_then(|v| v.split(':').next().map(PathBuf::from))
        .filter(|p| p.is_absolute())
        .or_else(|| under_home("go"));
    let mut paths = vec![
        var(env, "npm_config_cache").or_else(|| under_home(".npm")),
        cache_home(env),
        var(env, "pnpm_config_store_dir")
            .or_else(|| var(env, "PNPM_HOME").map(|d| d.join("store")))
            .or_else(|| xdg_data.map(|d| d.join("pnpm/store"))),
        var(env, "YARN_CACHE_FOLDER"),
        var(env, "YARN_GLOBAL_FOLDER").or_else(|| under_home(".yarn/berry")),
        var(env, "COREPACK_HOME"),
        var(env, "PIP_CACHE_DIR"),
        var(env, "UV_CACHE_DIR"),
        var(env, "GOMODCACHE").or_else(|| gopath.map(|p| p.join("pkg/mod"))),
        var(env, "GOCACHE"),
        var(env, "DENO_DIR"),
        var(env, "BUN_INSTALL_CACHE_DIR").or_else(|| under_home(".bun/install/cache")),
    ];
    // Cargo's downloads and its lock files, never its `bin/` or config.
    if let Some(cargo) = cargo {
        for name in [
            "registry",
            "git",
            ".package-cache",
            ".package-cache-mutate",
            ".global-cache",
        ] {
            paths.push(Some(cargo.join(name)));
        }
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for real in paths
        .into_iter()
        .flatten()
        .filter_map(|p| std::fs::canonicalize(p).ok())
    {
        if !found.iter().any(|f| real.starts_with(f)) {
            found.retain(|f| !f.starts_with(&real));
            found.push(real);
        }
    }
    found
}

/// What `caches` adds to a program's sandbox, for the environment `env` it
/// starts with (its `HOME`, `XDG_CACHE_HOME` and the tools' own variables
/// locate the person's caches).
pub(crate) fn setup(caches: Caches, env: &[(String, String)]) -> Setup {
    match caches {
        Caches::None => Setup::default(),
        Caches::Shared => Setup {
            writable: shared_paths(env),
            ..Setup::default()
        },
        Caches::Private => match private_dir(env) {
            Some(dir) => {
                copy_cargo_config(env, &dir);
                Setup {
                    writable: vec![dir.clone()],
                    env: private_env(&dir),
                    dir: Some(dir),
                }
            }
            None => Setup::default(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment with only `HOME`: every other variable the caches
    /// read is there and empty, so this process's own (Cargo sets
    /// `CARGO_HOME` for tests) are not read instead.
    fn home_env(home: &Path) -> Vec<(String, String)> {
        let mut env = vec![("HOME".to_owned(), home.to_string_lossy().into_owned())];
        for name in PRIVATE_VARIABLES
            .iter()
            .map(|(n, _)| *n)
            .chain(["XDG_DATA_HOME"])
        {
            env.push((name.to_owned(), String::new()));
        }
        env
    }

    #[test]
    fn names_round_trip() {
        for c in [Caches::Private, Caches::Shared, Caches::None] {
            assert_eq!(Caches::parse(c.as_str()), Some(c));
        }
        assert_eq!(Caches::parse("mine"), None);
        assert_eq!(Caches::default(), Caches::Private);
    }

    #[test]
    fn private_points_every_tool_into_one_folder_and_copies_cargo_config() {
        let home = super::super::TempDir::new().unwrap();
        let h = home.path();
        std::fs::create_dir_all(h.join(".cargo")).unwrap();
        std::fs::write(h.join(".cargo/config.toml"), "[net]\nretry = 7\n").unwrap();
        std::fs::write(h.join(".cargo/credentials.toml"), "secret").unwrap();
        let env = home_env(h);
        let s = setup(Caches::Private, &env);
        let dir = std::fs::canonicalize(h)
            .unwrap()
            .join(".cache/ptypilot/sandbox");
        assert_eq!(s.dir.as_deref(), Some(dir.as_path()));
        assert_eq!(s.writable.as_slice(), std::slice::from_ref(&dir));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let get = |k: &str| s.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("npm_config_cache"),
            Some(dir.join("npm").display().to_string())
        );
        assert_eq!(
            get("CARGO_HOME"),
            Some(dir.join("cargo").display().to_string())
        );
        assert_eq!(
            get("GOMODCACHE"),
            Some(dir.join("go/pkg/mod").display().to_string())
        );
        for (name, _) in PRIVATE_VARIABLES {
            assert!(
                get(name).unwrap().starts_with(dir.to_str().unwrap()),
                "{name}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("cargo/config.toml")).unwrap(),
            "[net]\nretry = 7\n"
        );
        assert!(!dir.join("cargo/credentials.toml").exists());
        // A config a sandboxed program wrote goes when the person has none.
        std::fs::remove_file(h.join(".cargo/config.toml")).unwrap();
        setup(Caches::Private, &env);
        assert!(!dir.join("cargo/config.toml").exists());
    }

    #[test]
    fn shared_lists_the_persons_own_folders_that_exist_and_none_nothing() {
        let home = super::super::TempDir::new().unwrap();
        let h = std::fs::canonicalize(home.path()).unwrap();
        for d in [
            ".npm",
            ".cache",
            ".cargo/registry",
            ".cargo/bin",
            "go/pkg/mod",
        ] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        std::fs::write(h.join(".cargo/.package-cache"), "").unwrap();
        let env = home_env(&h);
        let s = setup(Caches::Shared, &env);
        assert!(s.env.is_empty() && s.dir.is_none());
        let mut got = s.writable.clone();
        got.sort();
        let mut want = vec![
            h.join(".npm"),
            h.join(".cache"),
            h.join(".cargo/registry"),
            h.join(".cargo/.package-cache"),
            h.join("go/pkg/mod"),
        ];
        want.sort();
        assert_eq!(got, want);
        let none = setup(Caches::None, &env);
        assert!(none.writable.is_empty() && none.env.is_empty());
    }
}
