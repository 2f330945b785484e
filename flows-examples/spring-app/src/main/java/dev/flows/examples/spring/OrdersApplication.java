package dev.flows.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot service with flows: {@code flows-spring-boot-starter} builds a {@code Flows} on the
 * service's DataSource ({@code spring.datasource.*}) with the {@link PackOrder} bean registered and
 * runs its worker; {@link OrdersController} starts runs.
 */
@SpringBootApplication
public class OrdersApplication {
  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }
}
