-- A parent attempt suspends on its child: mark the child under its row lock and read its status.
-- No row: the run is not a child of the parent.
UPDATE flows.runs
   SET wakes_parent = true
 WHERE run_id = :childId
   AND parent_run_id = :parentId
RETURNING status
