package dev.flows.examples.servers;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClassifierTest {
  @ParameterizedTest(name = "{0} -> {1}/{2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "I was charged twice for my subscription, please refund | billing | high",
        "The app crashes with an error when I upload | bug | normal",
        "URGENT: the site is down for everyone | general | urgent",
        "I cannot log in, my account is locked | account | high",
        "It would be nice to have a dark mode feature | feature | low",
        "Hello there | general | normal",
        "I want to download my invoice | billing | normal",
      })
  void eachMessageGetsTheCategoryAndPriorityOfItsRules(
      String text, String category, String priority) {
    Classifier.Classification c = Classifier.classify(text);
    assertThat(c.category()).isEqualTo(category);
    assertThat(c.priority()).isEqualTo(priority);
  }

  @ParameterizedTest
  @CsvSource({"Refund ASAP please", "my PAYMENT failed"})
  void theSameTextAlwaysGetsTheSameAnswer(String text) {
    assertThat(Classifier.classify(text)).isEqualTo(Classifier.classify(text));
    assertThat(Classifier.classify(text).matched()).isNotEmpty();
  }
}
