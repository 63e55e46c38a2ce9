"""The dataset on disk: Parquet part files written atomically, the run's manifest, the
column schema, and the readers every later stage (analysis, reports) goes through."""
