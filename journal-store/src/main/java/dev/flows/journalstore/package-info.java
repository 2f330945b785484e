/**
 * The Postgres journal. {@link dev.flows.journalstore.PostgresJournal} is the {@code Journal} port
 * and delegates each verb to the class that owns it: {@code Admission} (every mode of {@code
 * admit}), {@code Claims}, {@code AttemptVerbs} (a live attempt's heartbeat and effects), {@code
 * MemoEffects} (the memo group commit), {@code AttemptEnds}, {@code StoredFunctionVerbs} (the
 * one-statement attempt ends), {@code Cancels}, {@code Expiry}, {@code OperatorVerbs}, {@code
 * LeaseRenewal} and {@code RunQueries}; the run-level consequences every end shares are {@code
 * RunEnds}.
 *
 * <p>Two data-access styles, one per kind of statement, both run by {@code JournalDb}:
 *
 * <ul>
 *   <li>A verb of several statements is one Jdbi transaction ({@code JournalDb.tx}, Postgres' READ
 *       COMMITTED): it reads "now" once ({@code JournalDb.now}: the test clock's when the journal
 *       has one, else the database's), locks the run before its steps (claimers lock only steps and
 *       skip locked ones, so lockers never deadlock), asks the kernel ({@code Lifecycle}, {@code
 *       AttemptEnd}) for every status change, writes with the expected old status (and, for a
 *       worker's verb, the lease) in the WHERE clause, and journals in the same transaction. Its
 *       statements are {@code VerbStatements}.
 *   <li>A verb of one statement on the hot path (claim, memo batch, lease renewal, the
 *       one-round-trip success and inline calls) is plain JDBC in autocommit ({@code
 *       JournalDb.autocommitRows}) with {@link dev.flows.journalstore.PositionalSql}: one round
 *       trip, without Jdbi's per-statement set-up.
 * </ul>
 *
 * <p>Every statement is a {@code sql/<name>.sql} resource ({@link dev.flows.journalstore.Sql});
 * every row is read by {@code JournalRows}; every function the statements call is in the repeatable
 * migration {@code R__journal_functions.sql}.
 */
package dev.flows.journalstore;
