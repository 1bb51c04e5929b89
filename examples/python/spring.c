/* A damped spring, simulated with semi-implicit Euler steps: x'' = -k x - c x'.
 * `spring_loss` is the mean squared distance between the simulated trajectory of
 * parameters (k, c) and an observed one: the loss train_torch.py minimizes. */

void simulate(const double *params, double *x_out, int steps, double dt) {
    double k = params[0], c = params[1], x = 1.0, v = 0.0;
    for (int t = 0; t < steps; t++) {
        v += dt * (-k * x - c * v);
        x += dt * v;
        x_out[t] = x;
    }
}

double spring_loss(const double *params, const double *observed, int steps, double dt) {
    double k = params[0], c = params[1], x = 1.0, v = 0.0, loss = 0.0;
    for (int t = 0; t < steps; t++) {
        v += dt * (-k * x - c * v);
        x += dt * v;
        double r = x - observed[t];
        loss += r * r;
    }
    return loss / steps;
}
