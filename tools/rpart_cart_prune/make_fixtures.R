# Reference outputs of R's rpart for CART's cross-validated pruning, priors and loss
# (tests/test_cart_prune_rpart.py). Run from the repository root:
#
#     Rscript tools/rpart_cart_prune/make_fixtures.R
#
# Needs R and rpart (Debian: apt-get install -y r-base-core r-cran-rpart); made with
# R 4.2.2 and rpart 4.1.19. Writes tests/data/rpart_cart/: the data (CSV, 6 decimals, no
# tied values within a column, so rpart's fully grown tree is the same as CART's), the
# fold vectors, and per fit its cp table and its frame in a canonical pre-order (the child
# holding "x < cut" first, as Quercus's "x <= threshold" child comes first).

suppressPackageStartupMessages(library(rpart))
out <- "tests/data/rpart_cart"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
num <- function(v) vapply(v, function(x) sprintf("%.17g", x), "")

make_data <- function(seed, n, k, p, shift) {
    set.seed(seed)
    y <- factor(sample(letters[1:k], n, replace = TRUE), levels = letters[1:k])
    X <- sapply(seq_len(p), function(j) rnorm(n, mean = shift * (as.integer(y) - 1) * (j %% 2 * 2 - 1)))
    X <- round(X, 6)
    stopifnot(!any(apply(X, 2, anyDuplicated)))
    d <- data.frame(X)
    names(d) <- paste0("x", seq_len(p))
    d$y <- y
    d
}

write_data <- function(d, name, folds) {
    write.csv(data.frame(lapply(d, function(col) if (is.numeric(col)) num(col) else col)),
              file.path(out, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
    write.csv(data.frame(fold = folds), file.path(out, paste0(name, ".folds.csv")),
              row.names = FALSE)
}

# the frame in pre-order with the "x < cut" child first: var, cut, n, wt, dev, yval (label),
# complexity, class probabilities
canonical_frame <- function(fit, d) {
    fr <- fit$frame
    ids <- as.integer(rownames(fr))
    primary <- fit$splits  # maxcompete = maxsurrogate = 0: one row per internal node
    internal <- which(fr$var != "<leaf>")
    stopifnot(nrow(primary) == length(internal))
    cut <- rep(NA, nrow(fr)); ncat <- rep(0, nrow(fr))
    cut[internal] <- primary[, "index"]; ncat[internal] <- primary[, "ncat"]
    lev <- levels(d$y)
    k <- length(lev)
    rows <- list()
    visit <- function(node) {
        i <- match(node, ids)
        probs <- fr$yval2[i, (k + 2):(2 * k + 1)]
        rows[[length(rows) + 1]] <<- data.frame(
            var = as.character(fr$var[i]), cut = if (is.na(cut[i])) "" else num(cut[i]),
            n = fr$n[i], wt = num(fr$wt[i]), dev = num(fr$dev[i]), yval = lev[fr$yval[i]],
            complexity = num(fr$complexity[i]),
            t(setNames(num(probs), paste0("p_", lev))), stringsAsFactors = FALSE)
        if (fr$var[i] != "<leaf>") {
            below <- if (ncat[i] == -1) 2 * node else 2 * node + 1
            visit(below)
            visit(if (below == 2 * node) 2 * node + 1 else 2 * node)
        }
    }
    visit(1L)
    do.call(rbind, rows)
}

write_fit <- function(fit, d, name, extra = NULL) {
    cpt <- fit$cptable
    tab <- data.frame(CP = num(cpt[, "CP"]), nsplit = cpt[, "nsplit"],
                      rel_error = num(cpt[, "rel error"]))
    if ("xerror" %in% colnames(cpt)) {
        tab$xerror <- num(cpt[, "xerror"]); tab$xstd <- num(cpt[, "xstd"])
    }
    if (!is.null(extra)) tab <- cbind(tab, extra)
    write.csv(tab, file.path(out, paste0(name, ".cptable.csv")), row.names = FALSE, quote = FALSE)
    write.csv(canonical_frame(fit, d), file.path(out, paste0(name, ".frame.csv")),
              row.names = FALSE, quote = FALSE)
}

grown <- rpart.control(cp = 0, minsplit = 2, minbucket = 1, maxcompete = 0, maxsurrogate = 0)
# with priors and losses the class weights are not whole numbers, and the many exact ties
# between the splits of nodes of two or three rows are then settled by rounding, differently
# in rpart and in CART: those fits stop at rpart's default node sizes instead (with cp = 0,
# rpart then drops the splits that lower no risk, which CART's cp table gives complexity 0)
sized <- rpart.control(cp = 0, minsplit = 20, minbucket = 7, maxcompete = 0, maxsurrogate = 0)

# 1. three classes, four features, default priors and losses
d3 <- make_data(20261201, 300, 3, 4, 1.2)
set.seed(1)  # a fold vector for which every fold's tree is CART's too (no split ties)
folds3 <- sample(rep(1:10, length.out = nrow(d3)))
write_data(d3, "three", folds3)
write_fit(rpart(y ~ ., d3, method = "class", parms = list(split = "gini"),
                control = modifyList(grown, list(xval = 0))), d3, "three_grown")
write_fit(rpart(y ~ ., d3, method = "class", parms = list(split = "gini"),
                control = modifyList(grown, list(xval = folds3))), d3, "three_cv")

# 2. the same rows with priors and a symmetric loss (rpart's xerror is then right: its
#    transposed loss only matters for an asymmetric matrix)
loss_sym <- matrix(c(0, 1, 3,  1, 0, 1,  3, 1, 0), 3, byrow = TRUE)
write_fit(rpart(y ~ ., d3, method = "class",
                parms = list(split = "gini", prior = c(0.2, 0.3, 0.5), loss = loss_sym),
                control = modifyList(sized, list(xval = folds3))), d3, "three_prior_loss")

# 3. two classes, two features, priors and an asymmetric loss (row = true class): rpart's
#    printcp charges the transposed loss, so the right xerror/xstd are computed here from
#    xpred.rpart's held-out classes at the cp table's thresholds, charging L(true, pred)
d2 <- make_data(4242, 240, 2, 2, 1.5)
set.seed(11)
folds2 <- sample(rep(1:5, length.out = nrow(d2)))
write_data(d2, "two", folds2)
prior2 <- c(0.3, 0.7)
loss2 <- matrix(c(0, 1,  4, 0), 2, byrow = TRUE)  # true b predicted a costs 4
fit2 <- rpart(y ~ ., d2, method = "class",
              parms = list(split = "gini", prior = prior2, loss = loss2),
              control = modifyList(sized, list(xval = 0)))
cp <- fit2$cptable[, "CP"]
m <- length(cp)
beta <- c(10 * cp[1], sqrt(cp[-1] * cp[-m]))
xp <- xpred.rpart(fit2, xval = folds2, cp = beta)
yi <- as.integer(d2$y)
f <- tabulate(yi, 2) / nrow(d2)
q <- prior2 / f
err <- sapply(seq_len(m), function(k) q[yi] * loss2[cbind(yi, xp[, k])])
R0 <- fit2$frame$dev[1]
xerror <- colSums(err) / R0
xstd <- sqrt(colSums(err^2) - colSums(err)^2 / nrow(d2)) / R0
write_fit(fit2, d2, "two_prior_loss",
          extra = data.frame(xerror_true_loss = num(xerror), xstd_true_loss = num(xstd)))
writeLines(c(R.version.string, paste("rpart", packageVersion("rpart"))),
           file.path(out, "VERSIONS.txt"))
