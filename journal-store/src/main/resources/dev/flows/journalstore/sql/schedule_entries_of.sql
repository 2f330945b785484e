SELECT seq, at, schedule_name, entry_type, created_by, payload
  FROM flows.schedule_entries
 WHERE schedule_name = :name
 ORDER BY seq
