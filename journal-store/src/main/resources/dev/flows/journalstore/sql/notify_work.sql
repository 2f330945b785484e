-- Delivered at commit, so a woken claimer finds the work.
SELECT pg_notify('flows_work', :runId)
