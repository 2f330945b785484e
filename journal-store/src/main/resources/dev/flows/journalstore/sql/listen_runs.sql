-- Run changes that leave no work to claim (an inline call's child ended): for run watchers.
LISTEN flows_runs
