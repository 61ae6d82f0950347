use toolmetadata::ToolMetadata;
use toolmetadata::metadata::Load as _;

fn main() -> Result<(), toolmetadata::Diagnostics> {
    let text = r#"{
      "description": "Look up a user",
      "parameters": [{"name": "id", "type": "string", "required": true}]
    }"#;
    let tool = ToolMetadata::from_json_str("get_user", text)?;
    println!("{}", tool.to_tools_list_json());
    Ok(())
}
