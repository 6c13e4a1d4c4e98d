declare namespace github {
// MUTATING and CREATIVE functions change or create data; unknown argument fields are rejected. With `_validateOnly: true` a call only checks its arguments and resolves to `{ valid: true }`.
// @approval: the call asks the user first; once approved, the run resumes without repeating earlier calls. Declined: APPROVAL_DECLINED.
interface Write<A, R> { (args: A & { _validateOnly: true }): Promise<{ valid: true }>; (args: A & { _validateOnly?: false }): Promise<R>; }
// READ-ONLY functions only read; an unknown argument field is ignored and reported as a warning.
/**
 * Check if a pull request has been merged
 *
 * Checks if a pull request has been merged into the base branch. The HTTP status of the response indicates whether or not the pull request has been merged; the response body is empty.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/merge
 */
function pulls_check_if_merged(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<unknown>;
/**
 * Get a pull request
 *
 * Draft pull requests are available in public repositories with GitHub Free and GitHub Free for organizations, GitHub Pro, and legacy per-repository billing plans, and in public and private repositories with GitHub Team and GitHub Enterprise Cloud. For more information, see [GitHub's products](https:/…
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}
 */
function pulls_get(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Pullrequest>;
/**
 * Get the result of an asynchronous merge
 *
 * Fetches the current result of an asynchronous merge request, identified by the UUID that was returned when the merge was requested.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}
 */
function pulls_get_merge_async_result(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
uuid: string; // The UUID of the asynchronous merge request, as returned when the merge was requested.
}): Promise<Pullrequestmergeasyncresult>;
/**
 * Get a review for a pull request
 *
 * Retrieves a pull request review by its ID.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}
 */
function pulls_get_review(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}): Promise<Pullrequestreview>;
/**
 * Get a review comment for a pull request
 *
 * Provides details for a specified review comment.
 *
 * GET /repos/{owner}/{repo}/pulls/comments/{comment_id}
 */
function pulls_get_review_comment(args: {
comment_id: int; // The unique identifier of the comment.
owner: string; // The account owner of the repository. The name is not case sensitive.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Pullrequestreviewcomment>;
/**
 * List pull requests
 *
 * Lists pull requests in a specified repository.
 *
 * GET /repos/{owner}/{repo}/pulls
 */
function pulls_list(args: {
base?: string; // Filter pulls by base branch name. Example: `gh-pages`.
direction?: "asc" | "desc"; // The direction of the sort. Default: `desc` when sort is `created` or sort is not specified, otherwise `asc`.
head?: string; // Filter pulls by head user or head organization and branch name in the format of `user:ref-name` or `organization:ref-name`. For example: `github:new-script-format` or `octocat:test-branch`.
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
/**
 * What to sort results by. `popularity` will sort by the number of comments. `long-running` will sort by date created and will limit the results to pull requests that have been open for more than a month and have had activity within the past month.
 * @default "created"
 */
sort?: "created" | "updated" | "popularity" | "long-running";
state?: "open" | "closed" | "all"; // Either `open`, `closed`, or `all` to filter by state. @default "open"
}): Promise<Pullrequestsimple[]>;
/**
 * List comments for a pull request review
 *
 * Lists comments for a specific pull request review.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments
 */
function pulls_list_comments_for_review(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}): Promise<Reviewcomment[]>;
/**
 * List commits on a pull request
 *
 * Lists a maximum of 250 commits for a pull request. To receive a complete
 * commit list for pull requests with more than 250 commits, use the [List commits](https://docs.github.com/rest/commits/commits#list-commits)
 * endpoint.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/commits
 */
function pulls_list_commits(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Commit[]>;
/**
 * List pull requests files
 *
 * Lists the files in a specified pull request.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/files
 */
function pulls_list_files(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Diffentry[]>;
/**
 * Get all requested reviewers for a pull request
 *
 * Gets the users or teams whose review is requested for a pull request. Once a requested reviewer submits a review, they are no longer considered a requested reviewer. Their review will instead be returned by the [List reviews for a pull request](https://docs.github.com/rest/pulls/reviews#list-reviews…
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers
 */
function pulls_list_requested_reviewers(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Pullrequestreviewrequest>;
/**
 * List review comments on a pull request
 *
 * Lists all review comments for a specified pull request. By default, review comments
 * are in ascending order by ID.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/comments
 */
function pulls_list_review_comments(args: {
direction?: "asc" | "desc"; // The direction to sort results. Ignored without `sort` parameter.
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
since?: datetime; // Only show results that were last updated after the given time. This is a timestamp in [ISO 8601](https://en.wikipedia.org/wiki/ISO_8601) format: `YYYY-MM-DDTHH:MM:SSZ`.
sort?: "created" | "updated"; // The property to sort the results by. @default "created"
}): Promise<Pullrequestreviewcomment[]>;
/**
 * List review comments in a repository
 *
 * Lists review comments for all pull requests in a repository. By default,
 * review comments are in ascending order by ID.
 *
 * GET /repos/{owner}/{repo}/pulls/comments
 */
function pulls_list_review_comments_for_repo(args: {
direction?: "asc" | "desc"; // The direction to sort results. Ignored without `sort` parameter.
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
since?: datetime; // Only show results that were last updated after the given time. This is a timestamp in [ISO 8601](https://en.wikipedia.org/wiki/ISO_8601) format: `YYYY-MM-DDTHH:MM:SSZ`.
sort?: "created" | "updated" | "created_at";
}): Promise<Pullrequestreviewcomment[]>;
/**
 * List reviews for a pull request
 *
 * Lists all reviews for a specified pull request. The list of reviews returns in chronological order.
 *
 * GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews
 */
function pulls_list_reviews(args: {
owner: string; // The account owner of the repository. The name is not case sensitive.
page?: int; // The page number of the results to fetch. For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 1
per_page?: int; // The number of results per page (max 100). For more information, see "[Using pagination in the REST API](https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api).". @default 30
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}): Promise<Pullrequestreview[]>;
// MUTATING functions
/**
 * Delete a pending review for a pull request
 *
 * Deletes a pull request review that has not been submitted. Submitted reviews cannot be deleted.
 *
 * DELETE /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id} @approval
 */
const pulls_delete_pending_review: Write<{
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}, Pullrequestreview>;
/**
 * Delete a review comment for a pull request
 *
 * Deletes a review comment.
 *
 * DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id} @approval
 */
const pulls_delete_review_comment: Write<{
comment_id: int; // The unique identifier of the comment.
owner: string; // The account owner of the repository. The name is not case sensitive.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, unknown>;
/**
 * Dismiss a review for a pull request
 *
 * Dismisses a specified review on a pull request.
 *
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals @approval
 */
const pulls_dismiss_review: Write<{
body: {
event?: "DISMISS";
message: string; // The message for the pull request review dismissal
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}, Pullrequestreview>;
/**
 * Merge a pull request
 *
 * Merges a pull request into the base branch.
 * This endpoint triggers [notifications](https://docs.github.com/github/managing-subscriptions-and-notifications-on-github/about-notifications). Creating content too quickly using this endpoint may result in secondary rate limiting. For more information, see…
 *
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge @approval
 */
const pulls_merge: Write<{
body?: {
commit_message?: string; // Extra detail to append to automatic commit message.
commit_title?: string; // Title for the automatic commit message.
merge_method?: "merge" | "squash" | "rebase"; // The merge method to use.
sha?: string; // SHA that pull request head must match to allow merge.
} | null;
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestmergeresult>;
/**
 * Merge a pull request asynchronously
 *
 * Merges a pull request into the base branch in the background. Merging in this way allows certain types of errors to be retried, and avoids the risk of timeouts for particularly complex merges.
 *
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge-async @approval
 */
const pulls_merge_async: Write<{
body?: {
commit_message?: string; // Extra detail to append to automatic commit message.
commit_title?: string; // Title for the automatic commit message.
merge_action?: "default" | "direct_merge" | "merge_queue"; // The action that will be taken to merge the pull request. `direct_merge` merges the pull request directly without using a merge queue; `merge_queue` adds the pull request to a merge queue; `default` selects the most appropriate option.
merge_method?: "merge" | "squash" | "rebase"; // The merge method to use.
/**
 * SHA that pull request head must match to allow merge. If not provided, the current head of the PR at the time of the request will be used; if the PR is pushed in between the merge being requested and being executed, the merge will be cancelled.
 */
sha?: string;
} | null;
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestmergeasyncresult>;
/**
 * Remove requested reviewers from a pull request
 *
 * Removes review requests from a pull request for a given set of users and/or teams.
 *
 * DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers @approval
 */
const pulls_remove_requested_reviewers: Write<{
body: {
reviewers: string[]; // An array of user `login`s that will be removed.
team_reviewers?: string[]; // An array of team `slug`s that will be removed.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestsimple>;
/**
 * Update a pull request
 *
 * Draft pull requests are available in public repositories with GitHub Free and GitHub Free for organizations, GitHub Pro, and legacy per-repository billing plans, and in public and private repositories with GitHub Team and GitHub Enterprise Cloud. For more information, see [GitHub's products](https:/…
 *
 * PATCH /repos/{owner}/{repo}/pulls/{pull_number} @approval
 */
const pulls_update: Write<{
body?: {
base?: string; // The name of the branch you want your changes pulled into. This should be an existing branch on the current repository. You cannot update the base branch on a pull request to point to another repository.
body?: string; // The contents of the pull request.
maintainer_can_modify?: boolean; // Indicates whether [maintainers can modify](https://docs.github.com/articles/allowing-changes-to-a-pull-request-branch-created-from-a-fork/) the pull request.
state?: "open" | "closed"; // State of this Pull Request. Either `open` or `closed`.
title?: string; // The title of the pull request.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequest>;
/**
 * Update a pull request branch
 *
 * Updates the pull request branch with the latest upstream changes by merging HEAD from the base branch into the pull request branch.
 * Note: If making a request on behalf of a GitHub App you must also have permissions to write the contents of the head repository.
 *
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch @approval
 */
const pulls_update_branch: Write<{
body?: {
/**
 * The expected SHA of the pull request's HEAD ref. This is the most recent commit on the pull request's branch. If the expected SHA does not match the pull request's HEAD, you will receive a `422 Unprocessable Entity` status. You can use the "[List commits](https://docs.github.com/rest/commits/commits#list-commits)" endpoint to find the most recent commit SHA. Default: SHA of the pull request's current HEAD ref.
 */
expected_head_sha?: string;
} | null;
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, PullsUpdateBranchResult>;
/**
 * Update a review for a pull request
 *
 * Updates the contents of a specified review summary comment.
 *
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id} @approval
 */
const pulls_update_review: Write<{
body: {
body: string; // The body text of the pull request review.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}, Pullrequestreview>;
/**
 * Update a review comment for a pull request
 *
 * Edits the content of a specified review comment.
 *
 * PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id} @approval
 */
const pulls_update_review_comment: Write<{
body: {
body: string; // The text of the reply to the review comment.
};
comment_id: int; // The unique identifier of the comment.
owner: string; // The account owner of the repository. The name is not case sensitive.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestreviewcomment>;
// CREATIVE functions
/**
 * Create a pull request
 *
 * Draft pull requests are available in public repositories with GitHub Free and GitHub Free for organizations, GitHub Pro, and legacy per-repository billing plans, and in public and private repositories with GitHub Team and GitHub Enterprise Cloud. For more information, see [GitHub's products](https:/…
 *
 * POST /repos/{owner}/{repo}/pulls
 */
const pulls_create: Write<{
body: {
base: string; // The name of the branch you want the changes pulled into. This should be an existing branch on the current repository. You cannot submit a pull request to one repository that requests a merge to a base of another repository.
body?: string; // The contents of the pull request.
draft?: boolean; // Indicates whether the pull request is a draft. See "[Draft Pull Requests](https://docs.github.com/articles/about-pull-requests#draft-pull-requests)" in the GitHub Help documentation to learn more.
head: string; // The name of the branch where your changes are implemented. For cross-repository pull requests in the same network, namespace `head` with a user like this: `username:branch`.
head_repo?: string; // The name of the repository where the changes in the pull request were made. This field is required for cross-repository pull requests if both repositories are owned by the same organization. @format repo.nwo
issue?: int; // An issue in the repository to convert to a pull request. The issue title, body, and comments will become the title, body, and comments on the new pull request. Required unless `title` is specified.
maintainer_can_modify?: boolean; // Indicates whether [maintainers can modify](https://docs.github.com/articles/allowing-changes-to-a-pull-request-branch-created-from-a-fork/) the pull request.
title?: string; // The title of the new pull request. Required unless `issue` is specified.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequest>;
/**
 * Create a reply for a review comment
 *
 * Creates a reply to a review comment for a pull request. For the `comment_id`, provide the ID of the review comment you are replying to. This must be the ID of a _top-level review comment_, not a reply to that comment. Replies to replies are not supported.
 *
 * POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies
 */
const pulls_create_reply_for_review_comment: Write<{
body: {
body: string; // The text of the review comment.
};
comment_id: int; // The unique identifier of the comment.
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestreviewcomment>;
/**
 * Create a review for a pull request
 *
 * Creates a review on a specified pull request.
 *
 * POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews
 */
const pulls_create_review: Write<{
body?: {
body?: string; // **Required** when using `REQUEST_CHANGES` or `COMMENT` for the `event` parameter. The body text of the pull request review.
comments?: {
body: string; // Text of the review comment.
line?: int;
path: string; // The relative path to the file that necessitates a review comment.
/**
 * The position in the diff where you want to add a review comment. Note this value is not the same as the line number in the file. The `position` value equals the number of lines down from the first "@@" hunk header in the file you want to add a comment. The line just below the "@@" line is position 1, the next line is position 2, and so on. The position in the diff continues to increase through lines of whitespace and additional hunks until the beginning of a new file.
 */
position?: int;
side?: string; start_line?: int; start_side?: string;
}[]; // Use the following table to specify the location, destination, and contents of the draft review comment.
/**
 * The SHA of the commit that needs a review. Not using the latest commit SHA may render your review comment outdated if a subsequent commit modifies the line you specify as the `position`. Defaults to the most recent commit in the pull request when you do not specify a value.
 */
commit_id?: string;
/**
 * The review action you want to perform. The review actions include: `APPROVE`, `REQUEST_CHANGES`, or `COMMENT`. By leaving this blank, you set the review action state to `PENDING`, which means you will need to [submit the pull request review](https://docs.github.com/rest/pulls/reviews#submit-a-review-for-a-pull-request) when you are ready.
 */
event?: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestreview>;
/**
 * Create a review comment for a pull request
 *
 * Creates a review comment on the diff of a specified pull request. To add a regular comment to a pull request timeline, see "[Create an issue comment](https://docs.github.com/rest/issues/comments#create-an-issue-comment)."
 *
 * POST /repos/{owner}/{repo}/pulls/{pull_number}/comments
 */
const pulls_create_review_comment: Write<{
body: {
body: string; // The text of the review comment.
commit_id: string; // The SHA of the commit needing a comment. Not using the latest commit SHA may render your comment outdated if a subsequent commit modifies the line you specify as the `position`.
/**
 * The ID of the review comment to reply to. To find the ID of a review comment with ["List review comments on a pull request"](#list-review-comments-on-a-pull-request). When specified, all parameters other than `body` in the request body are ignored.
 */
in_reply_to?: int;
line?: int; // **Required unless using `subject_type:file`**. The line of the blob in the pull request diff that the comment applies to. For a multi-line comment, the last line of the range that your comment applies to.
path: string; // The relative path to the file that necessitates a comment.
/**
 * **This parameter is closing down. Use `line` instead**. The position in the diff where you want to add a review comment. Note this value is not the same as the line number in the file. The position value equals the number of lines down from the first "@@" hunk header in the file you want to add a comment. The line just below the "@@" line is position 1, the next line is position 2, and so on. The position in the diff continues to increase through lines of whitespace and additional hunks until the beginning of a new file.
 */
position?: int;
/**
 * In a split diff view, the side of the diff that the pull request's changes appear on. Can be `LEFT` or `RIGHT`. Use `LEFT` for deletions that appear in red. Use `RIGHT` for additions that appear in green or unchanged lines that appear in white and are shown for context. For a multi-line comment, side represents whether the last line of the comment range is a deletion or addition. For more information, see "[Diff view options](https://docs.github.com/articles/about-comparing-branches-in-pull-requests#diff-view-options)" in the GitHub Help documentation.
 */
side?: "LEFT" | "RIGHT";
/**
 * **Required when using multi-line comments unless using `in_reply_to`**. The `start_line` is the first line in the pull request diff that your multi-line comment applies to. To learn more about multi-line comments, see "[Commenting on a pull request](https://docs.github.com/articles/commenting-on-a-pull-request#adding-line-comments-to-a-pull-request)" in the GitHub Help documentation.
 */
start_line?: int;
/**
 * **Required when using multi-line comments unless using `in_reply_to`**. The `start_side` is the starting side of the diff that the comment applies to. Can be `LEFT` or `RIGHT`. To learn more about multi-line comments, see "[Commenting on a pull request](https://docs.github.com/articles/commenting-on-a-pull-request#adding-line-comments-to-a-pull-request)" in the GitHub Help documentation. See `side` in this table for additional context.
 */
start_side?: "LEFT" | "RIGHT" | "side";
subject_type?: "line" | "file"; // The level at which the comment is targeted.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestreviewcomment>;
/**
 * Request reviewers for a pull request
 *
 * This endpoint triggers [notifications](https://docs.github.com/github/managing-subscriptions-and-notifications-on-github/about-notifications). Creating content too quickly using this endpoint may result in secondary rate limiting. See "[Secondary rate limits](https://docs.github.com/rest/overview/re…
 *
 * POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers
 */
const pulls_request_reviewers: Write<{
body?: {
reviewers?: string[]; // An array of user `login`s that will be requested.
team_reviewers?: string[]; // An array of team `slug`s that will be requested.
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
}, Pullrequestsimple>;
/**
 * Submit a review for a pull request
 *
 * Submits a pending review for a pull request. For more information about creating a pending review for a pull request, see "[Create a review for a pull request](https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request)."
 *
 * POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events
 */
const pulls_submit_review: Write<{
body: {
body?: string; // The body text of the pull request review
/**
 * The review action you want to perform. The review actions include: `APPROVE`, `REQUEST_CHANGES`, or `COMMENT`. When you leave this blank, the API returns _HTTP 422 (Unrecognizable entity)_ and sets the review action state to `PENDING`, which means you will need to re-submit the pull request review using a review action.
 */
event: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
};
owner: string; // The account owner of the repository. The name is not case sensitive.
pull_number: int; // The number that identifies the pull request.
repo: string; // The name of the repository without the `.git` extension. The name is not case sensitive.
review_id: int; // The unique identifier of the review.
}, Pullrequestreview>;
interface PullsUpdateBranchResult { message?: string; url?: string }
/**
 * Pull requests let you tell others about changes you've pushed to a repository on GitHub. Once a pull request is sent, interested parties can review the set of changes, discuss potential modifications, and even push follow-up commits if necessary.
 */
interface Pullrequest {
_links: { comments: Link; commits: Link; html: Link; issue: Link; review_comment: Link; review_comments: Link; self: Link; statuses: Link; };
active_lock_reason?: string | null; additions: int; assignee: Nullablesimpleuser | null; assignees?: Simpleuser[];
author_association: "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "MEMBER" | "NONE" | "OWNER";
auto_merge: Automerge | null; base: { label: string; ref: string; repo: Repository; sha: string; user: Simpleuser; };
body: string | null; changed_files: int; closed_at: datetime | null; comments: int;
comments_url: string; // @format uri
commits: int;
commits_url: string; // @format uri
created_at: datetime; deletions: int;
diff_url: string; // @format uri
draft?: boolean; // Indicates whether or not the pull request is a draft.
head: { label: string; ref: string; repo: Repository; sha: string; user: Simpleuser; };
html_url: string; // @format uri
id: int;
issue_url: string; // @format uri
labels: ({ color: string; default: boolean; description: string | null; id: int; name: string; node_id: string; url: string; })[];
locked: boolean;
maintainer_can_modify: boolean; // Indicates whether maintainers can modify the pull request.
merge_commit_sha: string | null; mergeable: boolean | null; mergeable_state: string; merged: boolean;
merged_at: datetime | null; merged_by: Nullablesimpleuser | null; milestone: Nullablemilestone | null; node_id: string;
number: int; // Number uniquely identifying the pull request within its repository.
patch_url: string; // @format uri
rebaseable?: boolean | null; requested_reviewers?: Simpleuser[]; requested_teams?: Teamsimple[];
review_comment_url: string; review_comments: int;
review_comments_url: string; // @format uri
stack?: Pullrequeststack | null;
state: "open" | "closed"; // State of this Pull Request. Either `open` or `closed`.
statuses_url: string; // @format uri
title: string; // The title of the pull request.
updated_at: datetime;
url: string; // @format uri
user: Simpleuser;
}
/** Pull Request Merge Async Result */
interface Pullrequestmergeasyncresult {
details: {
expected_head_sha: string; // SHA that the pull request head must match for the enqueued merge to proceed.
merge_action: "default" | "merge_queue" | "direct_merge"; merge_method: "default" | "merge" | "squash" | "rebase";
message: string; uuid: string;
} | { message: string; } | { message: string; sha: string; };
status: "pending" | "merged" | "enqueued" | "failed";
}
/** Pull Request Reviews are reviews on pull requests. */
interface Pullrequestreview {
_links: { html: { href: string; }; pull_request: { href: string; }; };
author_association: "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "MEMBER" | "NONE" | "OWNER";
body: string; // The text of the review.
body_html?: string; body_text?: string;
commit_id: string | null; // A commit SHA for the review. If the commit object was garbage collected or forcibly deleted, then it no longer exists in Git and this value will be `null`.
html_url: string; // @format uri
id: int; // Unique identifier of the review
node_id: string;
pull_request_url: string; // @format uri
state: string; submitted_at?: datetime; user: Nullablesimpleuser | null;
}
/** Pull Request Review Comments are comments on a portion of the Pull Request's diff. */
interface Pullrequestreviewcomment {
_links: { html: {
href: string; // @format uri
}; pull_request: {
href: string; // @format uri
}; self: {
href: string; // @format uri
}; };
author_association: "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "MEMBER" | "NONE" | "OWNER";
body: string; // The text of the comment.
body_html?: string; body_text?: string;
commit_id: string; // The SHA of the commit to which the comment applies.
created_at: datetime;
diff_hunk: string; // The diff of the line that the comment refers to.
html_url: string; // HTML URL for the pull request review comment. @format uri
id: int; // The ID of the pull request review comment.
in_reply_to_id?: int; // The comment ID to reply to.
line?: int; // The line of the blob to which the comment applies. The last line of the range for a multi-line comment
node_id: string; // The node ID of the pull request review comment.
original_commit_id: string; // The SHA of the original commit to which the comment applies.
original_line?: int; // The line of the blob to which the comment applies. The last line of the range for a multi-line comment
original_position?: int; // The index of the original line in the diff to which the comment applies. This field is closing down; use `original_line` instead.
original_start_line?: int | null; // The first line of the range for a multi-line comment.
path: string; // The relative path of the file to which the comment applies.
position?: int; // The line index in the diff to which the comment applies. This field is closing down; use `line` instead.
pull_request_review_id: int | null; // The ID of the pull request review to which the comment belongs.
pull_request_url: string; // URL for the pull request that the review comment belongs to. @format uri
reactions?: Reactionrollup;
side?: "LEFT" | "RIGHT"; // The side of the diff to which the comment applies. The side of the last line of the range for a multi-line comment. @default "RIGHT"
start_line?: int | null; // The first line of the range for a multi-line comment.
start_side?: "LEFT" | "RIGHT" | null | null; // The side of the first line of the range for a multi-line comment. @default "RIGHT"
subject_type?: "line" | "file"; // The level at which the comment is targeted, can be a diff line or a file.
updated_at: datetime;
url: string; // URL for the pull request review comment
user: Nullablesimpleuser | null;
}
/** Pull Request Simple */
interface Pullrequestsimple {
_links: { comments: Link; commits: Link; html: Link; issue: Link; review_comment: Link; review_comments: Link; self: Link; statuses: Link; };
active_lock_reason?: string | null; assignee: Nullablesimpleuser | null; assignees?: Simpleuser[];
author_association: "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "MEMBER" | "NONE" | "OWNER";
auto_merge: Automerge | null;
base: { label: string; ref: string; repo: Repository; sha: string; user: Nullablesimpleuser | null; };
body: string | null; closed_at: datetime | null;
comments_url: string; // @format uri
commits_url: string; // @format uri
created_at: datetime;
diff_url: string; // @format uri
draft?: boolean; // Indicates whether or not the pull request is a draft.
head: { label: string; ref: string; repo: Repository; sha: string; user: Nullablesimpleuser | null; };
html_url: string; // @format uri
id: int;
issue_url: string; // @format uri
labels: { color: string; default: boolean; description: string; id: int; name: string; node_id: string; url: string; }[];
locked: boolean; merge_commit_sha: string | null; merged_at: datetime | null; milestone: Nullablemilestone | null;
node_id: string; number: int;
patch_url: string; // @format uri
requested_reviewers?: Simpleuser[]; requested_teams?: Team[]; review_comment_url: string;
review_comments_url: string; // @format uri
stack?: Pullrequeststack | null; state: string;
statuses_url: string; // @format uri
title: string; updated_at: datetime;
url: string; // @format uri
user: Nullablesimpleuser | null;
}
/** Legacy Review Comment */
interface Reviewcomment {
_links: { html: Link; pull_request: Link; self: Link; };
author_association: "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "MEMBER" | "NONE" | "OWNER";
body: string; body_html?: string; body_text?: string; commit_id: string; created_at: datetime; diff_hunk: string;
html_url: string; // @format uri
id: int; in_reply_to_id?: int;
line?: int; // The line of the blob to which the comment applies. The last line of the range for a multi-line comment
node_id: string; original_commit_id: string;
original_line?: int; // The original line of the blob to which the comment applies. The last line of the range for a multi-line comment
original_position: int;
original_start_line?: int | null; // The original first line of the range for a multi-line comment.
path: string; position: int | null; pull_request_review_id: int | null;
pull_request_url: string; // @format uri
reactions?: Reactionrollup;
side?: "LEFT" | "RIGHT"; // The side of the first line of the range for a multi-line comment. @default "RIGHT"
start_line?: int | null; // The first line of the range for a multi-line comment.
start_side?: "LEFT" | "RIGHT" | null | null; // The side of the first line of the range for a multi-line comment. @default "RIGHT"
subject_type?: "line" | "file"; // The level at which the comment is targeted, can be a diff line or a file.
updated_at: datetime;
url: string; // @format uri
user: Nullablesimpleuser | null;
}
/** Commit */
interface Commit {
author: Simpleuser | Emptyobject | null;
comments_url: string; // @format uri
commit: {
author: Nullablegituser | null; comment_count: int; committer: Nullablegituser | null; message: string;
tree: {
sha: string;
url: string; // @format uri
};
url: string; // @format uri
verification?: Verification;
};
committer: Simpleuser | Emptyobject | null; files?: Diffentry[];
html_url: string; // @format uri
node_id: string; parents: {
html_url?: string; // @format uri
sha: string;
url: string; // @format uri
}[]; sha: string;
stats?: { additions?: int; deletions?: int; total?: int; };
url: string; // @format uri
}
/** Diff Entry */
interface Diffentry {
additions: int;
blob_url: string; // @format uri
changes: int;
contents_url: string; // @format uri
deletions: int; filename: string; patch?: string; previous_filename?: string;
raw_url: string; // @format uri
sha: string | null; status: "added" | "removed" | "modified" | "renamed" | "copied" | "changed" | "unchanged";
}
/** Pull Request Review Request */
interface Pullrequestreviewrequest { teams: Team[]; users: Simpleuser[] }
/** Pull Request Merge Result */
interface Pullrequestmergeresult { merged: boolean; message: string; sha: string }
/** Hypermedia Link */
interface Link { href: string }
/** A GitHub user. */
interface Nullablesimpleuser {
avatar_url: string; // @format uri
email?: string | null; events_url: string;
followers_url: string; // @format uri
following_url: string; gists_url: string; gravatar_id: string | null;
html_url: string; // @format uri
id: int; login: string; name?: string | null; node_id: string;
organizations_url: string; // @format uri
received_events_url: string; // @format uri
repos_url: string; // @format uri
site_admin: boolean; starred_at?: string; starred_url: string;
subscriptions_url: string; // @format uri
type: string;
url: string; // @format uri
user_view_type?: string;
}
/** A GitHub user. */
interface Simpleuser {
avatar_url: string; // @format uri
email?: string | null; events_url: string;
followers_url: string; // @format uri
following_url: string; gists_url: string; gravatar_id: string | null;
html_url: string; // @format uri
id: int; login: string; name?: string | null; node_id: string;
organizations_url: string; // @format uri
received_events_url: string; // @format uri
repos_url: string; // @format uri
site_admin: boolean; starred_at?: string; starred_url: string;
subscriptions_url: string; // @format uri
type: string;
url: string; // @format uri
user_view_type?: string;
}
/** The status of auto merging a pull request. */
interface Automerge {
commit_message: string; // Commit message for the merge commit.
commit_title: string; // Title for the merge commit message.
enabled_by: Simpleuser;
merge_method: "merge" | "squash" | "rebase"; // The merge method to use.
}
/** A repository on GitHub. */
interface Repository {
allow_auto_merge?: boolean; // Whether to allow Auto-merge to be used on pull requests. @default false
allow_forking?: boolean; // Whether to allow forking this repo
allow_merge_commit?: boolean; // Whether to allow merge commits for pull requests. @default true
allow_rebase_merge?: boolean; // Whether to allow rebase merges for pull requests. @default true
allow_squash_merge?: boolean; // Whether to allow squash merges for pull requests. @default true
allow_update_branch?: boolean; // Whether or not a pull request head branch that is behind its base branch can always be updated even if it is not required to be up to date before merging. @default false
anonymous_access_enabled?: boolean; // Whether anonymous git access is enabled for this repository
archive_url: string;
archived: boolean; // Whether the repository is archived. @default false
assignees_url: string; blobs_url: string; branches_url: string; clone_url: string;
code_search_index_status?: { lexical_commit_sha?: string; lexical_search_ok?: boolean; }; // The status of the code search index for this repository
collaborators_url: string; comments_url: string; commits_url: string; compare_url: string; contents_url: string;
contributors_url: string; // @format uri
created_at: datetime | null;
default_branch: string; // The default branch of the repository.
delete_branch_on_merge?: boolean; // Whether to delete head branches when pull requests are merged. @default false
deployments_url: string; // @format uri
description: string | null;
disabled: boolean; // Returns whether or not this repository disabled.
downloads_url: string; // @format uri
events_url: string; // @format uri
fork: boolean; forks: int; forks_count: int;
forks_url: string; // @format uri
full_name: string; git_commits_url: string; git_refs_url: string; git_tags_url: string; git_url: string;
has_discussions?: boolean; // Whether discussions are enabled. @default false
has_downloads: boolean; // Whether downloads are enabled. @default true
has_issues: boolean; // Whether issues are enabled. @default true
has_pages: boolean;
has_projects: boolean; // Whether projects are enabled. @default true
has_pull_requests?: boolean; // Whether pull requests are enabled. @default true
has_wiki: boolean; // Whether the wiki is enabled. @default true
homepage: string | null; // @format uri
hooks_url: string; // @format uri
html_url: string; // @format uri
id: int; // Unique identifier of the repository
is_template?: boolean; // Whether this repository acts as a template that can be used to generate new repositories. @default false
issue_comment_url: string; issue_events_url: string; issues_url: string; keys_url: string; labels_url: string;
language: string | null;
languages_url: string; // @format uri
license: Nullablelicensesimple | null; master_branch?: string;
/**
 * The default value for a merge commit message.
 *
 * - `PR_TITLE` - default to the pull request's title.
 * - `PR_BODY` - default to the pull request's body.
 * - `BLANK` - default to a blank commit message.
 */
merge_commit_message?: "PR_BODY" | "PR_TITLE" | "BLANK";
/**
 * The default value for a merge commit title.
 *
 * - `PR_TITLE` - default to the pull request's title.
 * - `MERGE_MESSAGE` - default to the classic title for a merge message (e.g., Merge pull request #123 from branch-name).
 */
merge_commit_title?: "PR_TITLE" | "MERGE_MESSAGE";
merges_url: string; // @format uri
milestones_url: string;
mirror_url: string | null; // @format uri
name: string; // The name of the repository.
node_id: string; notifications_url: string; open_issues: int; open_issues_count: int; owner: Simpleuser;
permissions?: { admin: boolean; maintain?: boolean; pull: boolean; push: boolean; triage?: boolean; };
private: boolean; // Whether the repository is private or public. @default false
pull_request_creation_policy?: "all" | "collaborators_only"; // The policy controlling who can create pull requests: all or collaborators_only.
pulls_url: string; pushed_at: datetime | null; releases_url: string;
size: int; // The size of the repository, in kilobytes. Size is calculated hourly. When a repository is initially created, the size is 0.
/**
 * The default value for a squash merge commit message:
 *
 * - `PR_BODY` - default to the pull request's body.
 * - `COMMIT_MESSAGES` - default to the branch's commit messages.
 * - `BLANK` - default to a blank commit message.
 */
squash_merge_commit_message?: "PR_BODY" | "COMMIT_MESSAGES" | "BLANK";
/**
 * The default value for a squash merge commit title:
 *
 * - `PR_TITLE` - default to the pull request's title.
 * - `COMMIT_OR_PR_TITLE` - default to the commit's title (if only one commit) or the pull request's title (when more than one commit).
 */
squash_merge_commit_title?: "PR_TITLE" | "COMMIT_OR_PR_TITLE";
ssh_url: string; stargazers_count: int;
stargazers_url: string; // @format uri
starred_at?: string; statuses_url: string;
subscribers_url: string; // @format uri
subscription_url: string; // @format uri
svn_url: string; // @format uri
tags_url: string; // @format uri
teams_url: string; // @format uri
temp_clone_token?: string; topics?: string[]; trees_url: string; updated_at: datetime | null;
url: string; // @format uri
use_squash_pr_title_as_default?: boolean; // Whether a squash merge commit can use the pull request title as default. **This property is closing down. Please use `squash_merge_commit_title` instead. @default false
visibility?: string; // The repository visibility: public, private, or internal. @default "public"
watchers: int; watchers_count: int;
web_commit_signoff_required?: boolean; // Whether to require contributors to sign off on web-based commits. @default false
}
/** A collection of related issues and pull requests. */
interface Nullablemilestone {
closed_at: datetime | null; closed_issues: int; created_at: datetime; creator: Nullablesimpleuser | null;
description: string | null; due_on: datetime | null;
html_url: string; // @format uri
id: int;
labels_url: string; // @format uri
node_id: string;
number: int; // The number of the milestone.
open_issues: int;
state: "open" | "closed"; // The state of the milestone. @default "open"
title: string; // The title of the milestone.
updated_at: datetime;
url: string; // @format uri
}
/** Groups of organization members that gives permissions on specified repositories. */
interface Teamsimple {
description: string | null; // Description of the team
enterprise_id?: int; // Unique identifier of the enterprise to which this team belongs
html_url: string; // @format uri
id: int; // Unique identifier of the team
ldap_dn?: string; // Distinguished Name (DN) that team maps to within LDAP environment
members_url: string;
name: string; // Name of the team
node_id: string;
notification_setting?: string; // The notification setting the team has set
organization_id?: int; // Unique identifier of the organization to which this team belongs
permission: string; // Permission that the team will have for its repositories
privacy?: string; // The level of privacy this team should have
repositories_url: string; // @format uri
slug: string;
type: "enterprise" | "organization"; // The ownership type of the team
url: string; // URL for the team. @format uri
}
/** The stack information associated with a pull request. */
interface Pullrequeststack {
base: {
ref: string; // The base ref of the stack this pull request belongs to.
sha: string; // The base SHA of the stack this pull request belongs to.
};
id?: int; // The ID of the stack that this pull request belongs to.
number?: int; // The number of the stack that this pull request belongs to.
position?: int; // The one-based position of this pull request within the stack, where 1 is the bottom of the stack.
size?: int; // The total number of pull requests in the stack.
}
interface Reactionrollup {
"+1": int; "-1": int; confused: int; eyes: int; heart: int; hooray: int; laugh: int; rocket: int; total_count: int;
url: string; // @format uri
}
/** Groups of organization members that gives permissions on specified repositories. */
interface Team {
access_source?: "direct" | "organization" | "enterprise"; // How the team's access to the repository was granted. This property is only. present when the team is returned in a repository context, such as. `GET /repos/{owner}/{repo}/teams`.
description: string | null;
enterprise_id?: int; // Unique identifier of the enterprise to which this team belongs
html_url: string; // @format uri
id: int; members_url: string; name: string; node_id: string; notification_setting?: string;
organization_id?: int; // Unique identifier of the organization to which this team belongs
parent: Nullableteamsimple | null; permission: string;
permissions?: { admin: boolean; maintain: boolean; pull: boolean; push: boolean; triage: boolean; }; privacy?: string;
repositories_url: string; // @format uri
slug: string;
type: "enterprise" | "organization"; // The ownership type of the team
url: string; // @format uri
}
/** An object without any properties. */
interface Emptyobject {}
/** Metaproperties for Git author/committer information. */
interface Nullablegituser { date?: datetime; email?: string; name?: string }
interface Verification { payload: string | null; reason: string; signature: string | null; verified: boolean; verified_at: string | null }
/** License Simple */
interface Nullablelicensesimple {
html_url?: string; // @format uri
key: string; name: string; node_id: string; spdx_id: string | null;
url: string | null; // @format uri
}
/** Groups of organization members that gives permissions on specified repositories. */
interface Nullableteamsimple {
description: string | null; // Description of the team
enterprise_id?: int; // Unique identifier of the enterprise to which this team belongs
html_url: string; // @format uri
id: int; // Unique identifier of the team
ldap_dn?: string; // Distinguished Name (DN) that team maps to within LDAP environment
members_url: string;
name: string; // Name of the team
node_id: string;
notification_setting?: string; // The notification setting the team has set
organization_id?: int; // Unique identifier of the organization to which this team belongs
permission: string; // Permission that the team will have for its repositories
privacy?: string; // The level of privacy this team should have
repositories_url: string; // @format uri
slug: string;
type: "enterprise" | "organization"; // The ownership type of the team
url: string; // URL for the team. @format uri
}
/** A whole number: 139617, not 139617.25. */
type int = number;
/** ISO 8601, e.g. "2026-03-01T14:30:00Z". */
type datetime = string;
}
