//! What a bucket root holds besides its ledger: blobs streamed into it,
//! and a signed root written, verified and kept to its key.

use super::*;

/// Blobs streamed into a content store in a bucket (`put_blob_from` over
/// `BlobStore::put_by_digest`), in one conditional put and, above the
/// store's single-put bound, in a multipart upload: each lands at
/// `<store>/blobs/sha256/<hex>` with its bytes, a second put of the same
/// bytes is idempotent, and a put over other bytes under that name is
/// `BlobMismatch` and leaves them as they are. The blob is read back in a
/// stream (`Store::open`), as the writer's check of a release reads it.
pub fn blobs_are_streamed_into_a_bucket(new_store: NewStore<'_>) {
    use nenjim_journal_api::valuetypes::ContentDigest;
    use nenjim_journal_writer::put_blob_from;

    let fs = new_store("blobs");
    let store = Path::new("/content");
    // Over one read buffer (64 KiB), so that the spool, the upload and the
    // read-back each take several steps.
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let small = b"a small blob".to_vec();
    // One put each, then the multipart path (a bound below both sizes).
    let multipart = Arc::new(
        ObjectFs::new(fs.object_store().clone(), "multipart")
            .unwrap()
            .with_single_put_max(4),
    );
    for (fs, blob) in [
        (fs.clone(), bytes.clone()),
        (multipart.clone(), {
            let mut other = bytes.clone();
            other.reverse();
            other
        }),
        (multipart.clone(), small.clone()),
    ] {
        let hex = ContentDigest::of_bytes(&blob).to_hex();
        let path = store.join("blobs/sha256").join(&hex);
        let put = put_blob_from(&*fs, store, &mut blob.as_slice()).unwrap();
        assert_eq!(put.pointer().digest().to_hex(), hex);
        assert_eq!(put.pointer().size(), blob.len() as u64);
        assert_eq!(put.path(), path);
        assert!(put.is_new());
        let mut read = Vec::new();
        std::io::Read::read_to_end(&mut fs.open(&path).unwrap(), &mut read).unwrap();
        assert_eq!(read, blob);
        let again = put_blob_from(&*fs, store, &mut blob.as_slice()).unwrap();
        assert!(!again.is_new());
        assert_eq!(again.pointer(), put.pointer());
    }
    // Other bytes under a blob's name: refused, never replaced, by either path.
    let hex = ContentDigest::of_bytes(&small).to_hex();
    let key = Key::from(format!("content/blobs/sha256/{hex}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(
            fs.object_store()
                .put(&key, PutPayload::from_static(b"damaged")),
        )
        .unwrap();
    for fs in [&fs, &multipart] {
        let error = put_blob_from(&**fs, store, &mut small.as_slice()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::BlobMismatch, "{error}");
        assert!(error.to_string().contains("damaged"), "{error}");
    }
    let kept = runtime.block_on(async {
        fs.object_store()
            .get(&key)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
    });
    assert_eq!(&kept[..], b"damaged");
}

/// A signed root in a bucket (format section 10): the writer keeps the
/// tiles and the checkpoint at `<root>/.ledger/tlog/` there as on a
/// directory, a verifying start and refresh read them, and a writer
/// without the key (or with another) is refused with `CheckpointInvalid`
/// without a single PUT.
pub fn a_signed_bucket_root_is_written_verified_and_kept_to_its_key(new_store: NewStore<'_>) {
    use nenjim_journal_testkit::signed;
    let fs = new_store("signed");
    let root = Path::new("/signed");
    fs.ensure_dir(root).unwrap();
    let (skey, vkey) = signed::key("bucket.example/journal", 7);
    let all = texts();
    let mut writer =
        FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new().signing_key(&skey))
            .unwrap();
    for text in all.iter().take(3) {
        writer.append(text).unwrap();
    }
    writer.close().unwrap();
    let (checkpoint, entries) = signed::checked(&*fs, root, &vkey).unwrap();
    assert_eq!((checkpoint.size(), entries.len()), (3, 3));
    assert!(
        fs.read(&root.join(".ledger/tlog/tile/entries/000.p/3"), 1 << 20)
            .is_ok()
    );
    let options = LoadOptions::new().verifier(&vkey);
    let (state, verified) = nenjim_journal_fs::load_verified(&*fs, root, options).unwrap();
    assert_eq!(state.len(), 3);
    let mut verified = verified;

    let before = fs.requests().put;
    let (other, _) = signed::key("bucket.example/journal", 8);
    for options in [
        WriterOptions::new(),
        WriterOptions::new().signing_key(&other),
    ] {
        let error = FsJournalWriter::open_store(fs.clone(), root, options).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
    }
    assert_eq!(fs.requests().put, before, "a refused writer wrote");

    let mut writer =
        FsJournalWriter::open_store(fs.clone(), root, WriterOptions::new().signing_key(&skey))
            .unwrap();
    writer.append(&all[3]).unwrap();
    writer.close().unwrap();
    let mut published = Vec::new();
    let report = nenjim_journal_fs::refresh_verified(
        &*fs,
        root,
        options,
        &state,
        &mut verified,
        &mut |next| published.push(next),
    )
    .unwrap();
    assert_eq!(report.ingested(), 1);
    assert_eq!(published.len(), 1);
    assert_eq!(verified.map(|v| v.checkpoint().size()), Some(4));
}
