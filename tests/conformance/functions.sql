-- The conformance suite's Python aggregate functions, for sqlengine (make_expected.py registers
-- the same classes on Flink through udfs/flink_aggs.py). ${HERE} is this directory.
SET 'python.files' = '${HERE}/udfs/conformance_aggs.py';
CREATE TEMPORARY FUNCTION wavg AS 'conformance_aggs.WeightedAvg' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION spread AS 'conformance_aggs.Spread' LANGUAGE PYTHON;
