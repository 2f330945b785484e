package dev.flows.examples.servers;

/** Logging set-up for the example servers' processes. */
final class Logging {
  static final String DEFAULT_LEVEL = "warn";

  private Logging() {}

  /** slf4j-simple to stderr at {@value #DEFAULT_LEVEL}, unless the caller chose otherwise. */
  static void toStderr() {
    System.setProperty(
        "org.slf4j.simpleLogger.logFile",
        System.getProperty("org.slf4j.simpleLogger.logFile", "System.err"));
    System.setProperty(
        "org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", DEFAULT_LEVEL));
  }
}
