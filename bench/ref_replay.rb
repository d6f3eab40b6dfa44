# frozen_string_literal: true

# Times strict replays in the reference engine for bench/replay_ratio.py.
#   REF_LIB=... ruby bench/ref_replay.rb ../shared/tools/ref-oracle/ref-engine/boot.rb
# Reads one export path per line on stdin; for each, replays it once from its JSON
# text (parse, load with every check) and prints the process CPU seconds it took.
require File.expand_path(ARGV.fetch(0))

$stdout.sync = true
texts = {}
$stdin.each_line do |line|
  path = line.strip
  next if path.empty?

  text = (texts[path] ||= File.read(path))
  start = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  RefEngine.load_data(JSON.parse(text))
  puts format('%.6f', Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - start)
rescue StandardError => e
  puts "error #{e.class}: #{e.message}".tr("\n", ' ')
end
