"""Reading results and turning them into statistics, plots and reports.
Everything here reads the Parquet files of a run, never the engines' state."""
