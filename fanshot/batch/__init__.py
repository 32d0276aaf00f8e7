"""`fanshot batch`: every photo of a folder or list read by the detector or the whole pipeline, on
this machine's cores or on a Ray cluster, resumable (docs/batch.md).

One photo's work is the same on either engine (reader.PhotoReader): read the file, run the
reader, write that photo's record atomically under DST/.batch/records/. The driver lists the
photos (photos), skips those with a record that succeeded (records), runs the rest on an engine
(embedded or on_ray) and assembles the outputs from the records (outputs), sorted, so both engines
write the same bytes.
"""
