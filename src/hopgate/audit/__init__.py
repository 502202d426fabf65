"""Reading recorded evaluations: verdict rows and metrics, statistics, peer metrics, the review queue, adjudication, what a store holds."""
