# Homebrew cask for Reins. Each release fills in the three placeholders from
# its disk image (see packaging/README.md, "Release"): version is the
# release's CFBundleShortVersionString, url is where the release serves
# Reins-<version>.dmg, and sha256 is `shasum -a 256` of that very file.
cask "reins" do
  version "0.0.0"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"

  url "https://github.com/reins-app/reins/releases/download/v#{version}/Reins-#{version}.dmg"
  name "Reins"
  desc "Lets AI agents operate your Chrome tabs, each act approved by you"
  homepage "https://github.com/reins-app/reins"

  depends_on macos: ">= :monterey"

  app "Reins.app"

  uninstall launchctl: "app.reins.Reins",
            quit:      "app.reins.Reins"

  zap trash: [
    "~/Library/Application Support/Reins",
    "~/Library/Application Support/*/NativeMessagingHosts/app.reins.bridge.json",
    "~/Library/Application Support/*/*/NativeMessagingHosts/app.reins.bridge.json",
    "~/Library/LaunchAgents/app.reins.Reins.plist",
  ]
end
